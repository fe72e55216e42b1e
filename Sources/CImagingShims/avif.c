// AV1-coded images through libavif, loaded at run time (dlopen of
// libavif.so.15, libavif 0.11): decoded by dav1d where libavif has it. As
// with libheif, CropKit parses the AVIF container itself and hands libavif
// one coded image at a time, wrapped as a minimal one-item AVIF in memory
// that CropKit wrote. Measured on the 12 MP photo (Benchmarks/RESULTS.md):
// libavif with dav1d decodes a frame about three times as fast as libheif
// 1.15 here, and converts only the rows and columns asked for.
#include "CImagingShims.h"
#include "loader_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The libavif structures CropKit reads or fills, declared as avif/avif.h
// (0.11) declares them, and checked against the loaded library before its
// first use (ck_avif_layout_holds): soname 15 is libavif 0.11's ABI.
typedef struct {
    uint32_t x, y, width, height;
} ck_avif_crop_rect;

// avifImage's leading fields (libavif allocates the whole struct).
typedef struct {
    uint32_t width, height, depth;
    int yuv_format, yuv_range, chroma_sample_position;
    uint8_t *yuv_planes[3];
    uint32_t yuv_row_bytes[3];
    int image_owns_yuv_planes;
    uint8_t *alpha_plane;
    uint32_t alpha_row_bytes;
} ck_avif_image;

// avifRGBImage, whole: CropKit allocates it.
typedef struct {
    uint32_t width, height, depth;
    int format, chroma_upsampling, chroma_downsampling;
    int avoid_libyuv, ignore_alpha, alpha_premultiplied, is_float;
    uint8_t *pixels;
    uint32_t row_bytes;
} ck_avif_rgb_image;

// avifDecoder's inputs, and the image it decodes into.
typedef struct {
    int codec_choice, max_threads, requested_source, allow_progressive, allow_incremental;
    int ignore_exif, ignore_xmp;
    uint32_t image_size_limit, image_dimension_limit, image_count_limit, strict_flags;
    ck_avif_image *image;
} ck_avif_decoder;

enum { ck_avif_codec_auto = 0, ck_avif_codec_dav1d = 2 };
enum { ck_avif_codec_can_decode = 1 };
enum { ck_avif_result_ok = 0, ck_avif_result_out_of_memory = 26 };
enum { ck_avif_yuv444 = 1, ck_avif_yuv422 = 2, ck_avif_yuv420 = 3, ck_avif_yuv400 = 4 };
enum { ck_avif_rgb = 0, ck_avif_rgba = 1 };
enum { ck_avif_upsampling_nearest = 3 };

typedef struct {
    const char *(*version)(void);
    const char *(*codec_name)(int, uint32_t);
    const char *(*result_string)(int);
    ck_avif_decoder *(*decoder_create)(void);
    void (*decoder_destroy)(ck_avif_decoder *);
    int (*set_io_memory)(ck_avif_decoder *, const uint8_t *, size_t);
    int (*parse)(ck_avif_decoder *);
    int (*next_image)(ck_avif_decoder *);
    ck_avif_image *(*image_create_empty)(void);
    void (*image_destroy)(ck_avif_image *);
    int (*set_view_rect)(ck_avif_image *, const ck_avif_image *, const ck_avif_crop_rect *);
    void (*rgb_defaults)(ck_avif_rgb_image *, const ck_avif_image *);
    int (*yuv_to_rgb)(const ck_avif_image *, ck_avif_rgb_image *);
} ck_avif_table;

static ck_avif_table ck_avif;

static const char *const ck_avif_sonames[] = {"libavif.so.15"};

#define CK_AVIF_SYMBOL(field, name) {name, offsetof(ck_avif_table, field), 1}
static const ck_symbol ck_avif_symbols[] = {
    CK_AVIF_SYMBOL(version, "avifVersion"),
    CK_AVIF_SYMBOL(codec_name, "avifCodecName"),
    CK_AVIF_SYMBOL(result_string, "avifResultToString"),
    CK_AVIF_SYMBOL(decoder_create, "avifDecoderCreate"),
    CK_AVIF_SYMBOL(decoder_destroy, "avifDecoderDestroy"),
    CK_AVIF_SYMBOL(set_io_memory, "avifDecoderSetIOMemory"),
    CK_AVIF_SYMBOL(parse, "avifDecoderParse"),
    CK_AVIF_SYMBOL(next_image, "avifDecoderNextImage"),
    CK_AVIF_SYMBOL(image_create_empty, "avifImageCreateEmpty"),
    CK_AVIF_SYMBOL(image_destroy, "avifImageDestroy"),
    CK_AVIF_SYMBOL(set_view_rect, "avifImageSetViewRect"),
    CK_AVIF_SYMBOL(rgb_defaults, "avifRGBImageSetDefaults"),
    CK_AVIF_SYMBOL(yuv_to_rgb, "avifImageYUVToRGB"),
};

static ck_library ck_avif_library = {ck_avif_sonames, sizeof ck_avif_sonames / sizeof ck_avif_sonames[0],
                                     ck_avif_symbols, sizeof ck_avif_symbols / sizeof ck_avif_symbols[0],
                                     &ck_avif, sizeof ck_avif, 0};

// Whether the loaded library lays its structures out as declared above: a
// new decoder holds libavif 0.11's documented defaults where CropKit expects
// them, and the RGB defaults fill exactly the fields declared, no further.
static int ck_avif_layout_holds(void) {
    const char *version = ck_avif.version();
    if (version == NULL || strncmp(version, "0.11.", 5) != 0) return 0;
    ck_avif_decoder *decoder = ck_avif.decoder_create();
    if (decoder == NULL) return 0;
    int holds = decoder->codec_choice == ck_avif_codec_auto && decoder->max_threads == 1 &&
                decoder->image_size_limit == 16384u * 16384u && decoder->image_dimension_limit == 32768 &&
                decoder->strict_flags == 7 && decoder->image == NULL;
    ck_avif.decoder_destroy(decoder);
    ck_avif_image *image = ck_avif.image_create_empty();
    if (image == NULL) return 0;
    image->width = 7;
    image->height = 5;
    image->depth = 10;
    struct {
        ck_avif_rgb_image rgb;
        uint8_t guard[32];
    } probe;
    memset(&probe, 0xAB, sizeof probe);
    ck_avif.rgb_defaults(&probe.rgb, image);
    ck_avif.image_destroy(image);
    holds = holds && probe.rgb.width == 7 && probe.rgb.height == 5 && probe.rgb.depth == 10 &&
            probe.rgb.format == ck_avif_rgba && probe.rgb.pixels == NULL && probe.rgb.row_bytes == 0 &&
            probe.guard[0] == 0xAB && probe.guard[sizeof probe.guard - 1] == 0xAB;
    return holds;
}

static int ck_avif_state = 0;

int ck_avif_available(void) {
    int state = __atomic_load_n(&ck_avif_state, __ATOMIC_ACQUIRE);
    if (state == 0) {
        // Racing first calls compute the same answer; each stores it.
        state = ck_library_load(&ck_avif_library) && ck_avif_layout_holds() ? 1 : -1;
        __atomic_store_n(&ck_avif_state, state, __ATOMIC_RELEASE);
    }
    return state > 0;
}

const char *ck_avif_version(void) { return ck_avif_available() ? ck_avif.version() : NULL; }

// Says what failed, and libavif's words for it.
static int ck_avif_fail(ck_heif_decode_request *request, const char *what, int result) {
    snprintf(request->message, sizeof request->message, "%s: %s (libavif result %d)", what,
             ck_avif.result_string(result), result);
    return result == ck_avif_result_out_of_memory ? CK_STATUS_OUT_OF_MEMORY : CK_STATUS_CORRUPT;
}

// The decoded planes as coded, each row packed (the edge tiles of a crop,
// encoded again).
static int ck_avif_copy_planes(ck_heif_decode_request *request, const ck_avif_image *image) {
    static const int formats[4] = {ck_avif_yuv400, ck_avif_yuv420, ck_avif_yuv422, ck_avif_yuv444};
    uint32_t code = request->planar_monochrome ? 0 : request->planar_chroma;
    if (code > 3 || image->yuv_format != formats[code]) {
        snprintf(request->message, sizeof request->message, "the coded chroma (libavif format %d) is not the one asked",
                 image->yuv_format);
        return CK_STATUS_CORRUPT;
    }
    size_t sample = image->depth > 8 ? 2 : 1;
    for (int plane = 0; plane < (code == 0 ? 1 : 3); plane++) {
        uint32_t width = image->width, height = image->height;
        if (plane > 0 && image->yuv_format != ck_avif_yuv444) width = (width + 1) / 2;
        if (plane > 0 && image->yuv_format == ck_avif_yuv420) height = (height + 1) / 2;
        if (image->yuv_planes[plane] == NULL || width > request->plane_width[plane] ||
            height > request->plane_height[plane]) {
            snprintf(request->message, sizeof request->message, "plane %d decoded as %ux%u", plane, width, height);
            return CK_STATUS_CORRUPT;
        }
        for (uint32_t y = 0; y < height; y++)
            memcpy(request->planes[plane] + (size_t)y * request->plane_width[plane] * sample,
                   image->yuv_planes[plane] + (size_t)y * image->yuv_row_bytes[plane], (size_t)width * sample);
    }
    return CK_STATUS_OK;
}

// One row of decoded samples (`bytes` a pixel: 1-byte samples, or native
// 16-bit ones holding the coded value) to the destination's layout:
// big-endian above 8 bits, scaled to 16 bits when asked.
static void ck_avif_store_row(const ck_heif_decode_request *request, const uint8_t *from, uint8_t *to,
                              uint32_t bytes) {
    if (request->bit_depth <= 8) {
        if (request->destination_pixel_bytes == bytes) {
            memcpy(to, from, (size_t)request->width * bytes);
        } else {
            for (uint32_t x = 0; x < request->width; x++)
                memcpy(to + (size_t)x * request->destination_pixel_bytes, from + (size_t)x * bytes, bytes);
        }
        return;
    }
    uint32_t samples = bytes / 2;
    int scale = request->scale_bits > 8 && request->scale_bits < 16;
    uint32_t up = scale ? 16 - request->scale_bits : 0, down = scale ? 2 * request->scale_bits - 16 : 0;
    for (uint32_t x = 0; x < request->width; x++) {
        const uint16_t *coded = (const uint16_t *)(const void *)(from + (size_t)x * bytes);
        uint8_t *pixel = to + (size_t)x * request->destination_pixel_bytes;
        for (uint32_t i = 0; i < samples; i++) {
            uint32_t value = coded[i];
            if (scale) value = (value << up | value >> down) & 0xFFFF;
            pixel[2 * i] = (uint8_t)(value >> 8);
            pixel[2 * i + 1] = (uint8_t)value;
        }
    }
}

// The luma plane alone (an alpha image), as coded.
static int ck_avif_copy_luma(ck_heif_decode_request *request, const ck_avif_image *image) {
    uint32_t bytes = image->depth > 8 ? 2 : 1;
    for (uint32_t y = 0; y < request->height; y++) {
        const uint8_t *from = image->yuv_planes[0] + (size_t)(request->source_y + y) * image->yuv_row_bytes[0] +
                              (size_t)request->source_x * bytes;
        ck_avif_store_row(request, from, request->destination + (size_t)y * request->destination_stride, bytes);
    }
    return CK_STATUS_OK;
}

// The asked part converted to RGB a band of rows at a time, through a view
// whose origin sits on the chroma grid: only those rows and columns are
// converted, and nearest-neighbour chroma makes each pixel independent of
// where a band starts (libheif 1.15 upsamples by nearest neighbour too).
static int ck_avif_convert(ck_heif_decode_request *request, const ck_avif_image *image) {
    enum { band_rows = 32 };
    // libavif takes views of a monochrome image on the 4:2:0 grid too.
    int subsampled_y = image->yuv_format == ck_avif_yuv420 || image->yuv_format == ck_avif_yuv400;
    int subsampled_x = subsampled_y || image->yuv_format == ck_avif_yuv422;
    uint32_t x0 = subsampled_x ? request->source_x & ~1u : request->source_x;
    uint32_t y0 = subsampled_y ? request->source_y & ~1u : request->source_y;
    uint32_t view_width = request->source_x + request->width - x0;
    uint32_t bytes = image->depth > 8 ? 6 : 3;
    size_t band_bytes = (size_t)view_width * bytes;
    uint8_t *band = malloc(band_bytes * band_rows);
    ck_avif_image *view = ck_avif.image_create_empty();
    int status = CK_STATUS_OK;
    if (band == NULL || view == NULL) {
        snprintf(request->message, sizeof request->message, "no memory for a band of %u rows", (unsigned)band_rows);
        status = CK_STATUS_OUT_OF_MEMORY;
        goto done;
    }
    uint32_t end = request->source_y + request->height;
    for (uint32_t top = y0; top < end; top += band_rows) {
        ck_avif_crop_rect rect = {x0, top, view_width, end - top < band_rows ? end - top : band_rows};
        int result = ck_avif.set_view_rect(view, image, &rect);
        if (result != ck_avif_result_ok) {
            status = ck_avif_fail(request, "taking rows of the decoded image", result);
            goto done;
        }
        ck_avif_rgb_image rgb;
        ck_avif.rgb_defaults(&rgb, view);
        rgb.format = ck_avif_rgb;
        rgb.chroma_upsampling = ck_avif_upsampling_nearest;
        // libavif's own conversion, not libyuv's: libyuv's fixed-point
        // coefficients differ from libheif's and libavif's by up to 7 (the
        // Link-U photos); libavif's are within 1 of libheif's. It costs
        // 50-60 ms on a whole 12 MP frame, 10-15 ms on its centre 3 MP.
        rgb.avoid_libyuv = 1;
        rgb.pixels = band;
        rgb.row_bytes = (uint32_t)band_bytes;
        result = ck_avif.yuv_to_rgb(view, &rgb);
        if (result != ck_avif_result_ok) {
            status = ck_avif_fail(request, "converting to RGB", result);
            goto done;
        }
        for (uint32_t row = 0; row < rect.height; row++) {
            uint32_t y = top + row;
            if (y < request->source_y) continue;
            ck_avif_store_row(request, band + row * band_bytes + (size_t)(request->source_x - x0) * bytes,
                              request->destination + (size_t)(y - request->source_y) * request->destination_stride,
                              bytes);
        }
    }
done:
    if (view) ck_avif.image_destroy(view);
    free(band);
    return status;
}

int ck_avif_decode(ck_heif_decode_request *request, uint32_t threads) {
    if (!ck_avif_available()) {
        snprintf(request->message, sizeof request->message, "libavif.so.15 (libavif 0.11) is not installed");
        return CK_STATUS_CANNOT_OPEN;
    }
    ck_avif_decoder *decoder = ck_avif.decoder_create();
    if (decoder == NULL) return CK_STATUS_OUT_OF_MEMORY;
    int status = CK_STATUS_OK;
    decoder->codec_choice =
        ck_avif.codec_name(ck_avif_codec_dav1d, ck_avif_codec_can_decode) ? ck_avif_codec_dav1d : ck_avif_codec_auto;
    decoder->max_threads = threads > 0 ? (int)threads : 1;
    // CropKit wrote the file: its own parser has checked the source's boxes.
    decoder->strict_flags = 0;
    decoder->ignore_exif = 1;
    decoder->ignore_xmp = 1;
    int result = ck_avif.set_io_memory(decoder, request->file, request->file_size);
    if (result == ck_avif_result_ok) result = ck_avif.parse(decoder);
    if (result != ck_avif_result_ok) {
        status = ck_avif_fail(request, "its decoder configuration or data was refused", result);
        goto done;
    }
    result = ck_avif.next_image(decoder);
    if (result != ck_avif_result_ok) {
        status = ck_avif_fail(request, "decoding the coded data", result);
        goto done;
    }
    const ck_avif_image *image = decoder->image;
    // libavif scales a frame coded at another size than its ispe to the
    // ispe's (and its decoders' frames are never the image's own planes
    // otherwise): a coded size that disagrees is refused, as libheif's
    // smaller frame is.
    if (image->image_owns_yuv_planes) {
        snprintf(request->message, sizeof request->message,
                 "the coded image's size is not the %ux%u its ispe declares", image->width, image->height);
        status = CK_STATUS_CORRUPT;
        goto done;
    }
    if (request->planar_chroma > 0 || request->planar_monochrome) {
        status = ck_avif_copy_planes(request, image);
        goto done;
    }
    if (image->width < request->source_x + request->width || image->height < request->source_y + request->height ||
        image->yuv_planes[0] == NULL) {
        snprintf(request->message, sizeof request->message,
                 "the coded image decoded to %ux%u, smaller than its declared size", image->width, image->height);
        status = CK_STATUS_CORRUPT;
        goto done;
    }
    status = request->channels == 1 ? ck_avif_copy_luma(request, image) : ck_avif_convert(request, image);
done:
    ck_avif.decoder_destroy(decoder);
    return status;
}
