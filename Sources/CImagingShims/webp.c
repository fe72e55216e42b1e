// WebP bitstreams through libwebp, loaded at run time (dlopen of
// libwebp.so.7): no -dev package is needed to build, and a machine without
// libwebp still runs everything else. CropKit parses the RIFF container
// itself and hands libwebp a minimal WebP it wrote (the image's VP8 or VP8L
// bitstream, with its ALPH chunk): libwebp never sees the source's metadata
// chunks. Output is assembled the same way: libwebp encodes the pixels, and
// CropKit writes the container around them.
#include "CImagingShims.h"
#include "loader_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The libwebp structures and functions CropKit uses, declared here as
// webp/decode.h and webp/encode.h declare them (decoder ABI 0x0209, encoder
// ABI 0x020f: libwebp 1.x; only the major byte of an ABI version is
// checked, so these open any libwebp.so.7).
enum { ck_webp_decoder_abi = 0x0209, ck_webp_encoder_abi = 0x020f };
enum { ck_vp8_status_ok = 0, ck_vp8_status_out_of_memory = 1, ck_vp8_status_suspended = 5 };
enum { ck_webp_mode_rgb = 0, ck_webp_mode_rgba = 1 };

typedef struct {
    int width, height, has_alpha, has_animation, format;
    uint32_t pad[5];
} ck_webp_features;

typedef struct {
    uint8_t *rgba;
    int stride;
    size_t size;
} ck_webp_rgba_buffer;

typedef struct {
    uint8_t *y, *u, *v, *a;
    int y_stride, u_stride, v_stride, a_stride;
    size_t y_size, u_size, v_size, a_size;
} ck_webp_yuva_buffer;

typedef struct {
    int colorspace;
    int width, height;
    int is_external_memory;
    union {
        ck_webp_rgba_buffer RGBA;
        ck_webp_yuva_buffer YUVA;
    } u;
    uint32_t pad[4];
    uint8_t *private_memory;
} ck_webp_dec_buffer;

typedef struct {
    int bypass_filtering, no_fancy_upsampling, use_cropping, crop_left, crop_top, crop_width, crop_height;
    int use_scaling, scaled_width, scaled_height, use_threads, dithering_strength, flip, alpha_dithering_strength;
    uint32_t pad[5];
} ck_webp_decoder_options;

typedef struct {
    ck_webp_features input;
    ck_webp_dec_buffer output;
    ck_webp_decoder_options options;
} ck_webp_decoder_config;

typedef struct {
    int lossless;
    float quality;
    int method;
    int image_hint;
    int target_size;
    float target_PSNR;
    int segments, sns_strength, filter_strength, filter_sharpness, filter_type, autofilter;
    int alpha_compression, alpha_filtering, alpha_quality, pass, show_compressed, preprocessing;
    int partitions, partition_limit, emulate_jpeg_size, thread_level, low_memory, near_lossless, exact;
    int use_delta_palette, use_sharp_yuv;
    uint32_t pad[2];
} ck_webp_config;

struct ck_webp_picture;
typedef int (*ck_webp_writer_fn)(const uint8_t *, size_t, const struct ck_webp_picture *);

typedef struct ck_webp_picture {
    int use_argb;
    int colorspace;
    int width, height;
    uint8_t *y, *u, *v;
    int y_stride, uv_stride;
    uint8_t *a;
    int a_stride;
    uint32_t pad1[2];
    uint32_t *argb;
    int argb_stride;
    uint32_t pad2[3];
    ck_webp_writer_fn writer;
    void *custom_ptr;
    int extra_info_type;
    uint8_t *extra_info;
    void *stats;
    int error_code;
    void *progress_hook;
    void *user_data;
    uint32_t pad3[3];
    uint8_t *pad4, *pad5;
    uint32_t pad6[8];
    void *memory_;
    void *memory_argb_;
    void *pad7[2];
} ck_webp_picture;

typedef struct {
    uint8_t *mem;
    size_t size;
    size_t max_size;
    uint32_t pad[1];
} ck_webp_memory_writer;

struct ck_webp_idec;

typedef struct {
    int (*init_decoder_config)(ck_webp_decoder_config *, int);
    struct ck_webp_idec *(*idecode)(const uint8_t *, size_t, ck_webp_decoder_config *);
    int (*iupdate)(struct ck_webp_idec *, const uint8_t *, size_t);
    uint8_t *(*idec_get_rgb)(const struct ck_webp_idec *, int *, int *, int *, int *);
    void (*idelete)(struct ck_webp_idec *);
    // Encoding; optional: without them WebP is only read.
    int (*config_init)(ck_webp_config *, int, float, int);
    int (*config_lossless_preset)(ck_webp_config *, int);
    int (*picture_init)(ck_webp_picture *, int);
    int (*import_rgb)(ck_webp_picture *, const uint8_t *, int);
    int (*import_rgba)(ck_webp_picture *, const uint8_t *, int);
    void (*picture_free)(ck_webp_picture *);
    int (*encode)(const ck_webp_config *, ck_webp_picture *);
    void (*memory_writer_init)(ck_webp_memory_writer *);
    void (*memory_writer_clear)(ck_webp_memory_writer *);
    int (*memory_write)(const uint8_t *, size_t, const ck_webp_picture *);
} ck_webp_table;

static ck_webp_table ck_webp;

static const char *const ck_webp_sonames[] = {"libwebp.so.7", "libwebp.7.dylib", "/opt/homebrew/lib/libwebp.7.dylib",
                                              "/usr/local/lib/libwebp.7.dylib"};

#define CK_WEBP_SYMBOL(field, name, required) {name, offsetof(ck_webp_table, field), required}
static const ck_symbol ck_webp_symbols[] = {
    CK_WEBP_SYMBOL(init_decoder_config, "WebPInitDecoderConfigInternal", 1),
    CK_WEBP_SYMBOL(idecode, "WebPIDecode", 1),
    CK_WEBP_SYMBOL(iupdate, "WebPIUpdate", 1),
    CK_WEBP_SYMBOL(idec_get_rgb, "WebPIDecGetRGB", 1),
    CK_WEBP_SYMBOL(idelete, "WebPIDelete", 1),
    CK_WEBP_SYMBOL(config_init, "WebPConfigInitInternal", 0),
    CK_WEBP_SYMBOL(config_lossless_preset, "WebPConfigLosslessPreset", 0),
    CK_WEBP_SYMBOL(picture_init, "WebPPictureInitInternal", 0),
    CK_WEBP_SYMBOL(import_rgb, "WebPPictureImportRGB", 0),
    CK_WEBP_SYMBOL(import_rgba, "WebPPictureImportRGBA", 0),
    CK_WEBP_SYMBOL(picture_free, "WebPPictureFree", 0),
    CK_WEBP_SYMBOL(encode, "WebPEncode", 0),
    CK_WEBP_SYMBOL(memory_writer_init, "WebPMemoryWriterInit", 0),
    CK_WEBP_SYMBOL(memory_writer_clear, "WebPMemoryWriterClear", 0),
    CK_WEBP_SYMBOL(memory_write, "WebPMemoryWrite", 0),
};

static ck_library ck_webp_library = {ck_webp_sonames, sizeof ck_webp_sonames / sizeof ck_webp_sonames[0],
                                     ck_webp_symbols, sizeof ck_webp_symbols / sizeof ck_webp_symbols[0],
                                     &ck_webp, sizeof ck_webp, 0};

int ck_webp_available(void) { return ck_library_load(&ck_webp_library); }

int ck_webp_can_encode(void) {
    return ck_webp_available() && ck_webp.config_init && ck_webp.config_lossless_preset &&
           ck_webp.picture_init && ck_webp.import_rgb && ck_webp.import_rgba && ck_webp.picture_free &&
           ck_webp.encode && ck_webp.memory_writer_init && ck_webp.memory_writer_clear && ck_webp.memory_write;
}

// libwebp's VP8StatusCode in words. CropKit never aborts a decode itself:
// libwebp reports "user abort" when its own output stage stops, as it does
// on alpha (ALPH) data that cannot be decoded.
static const char *ck_webp_status_name(int status) {
    static const char *const names[] = {"ok", "out of memory", "invalid parameter", "bitstream error",
                                        "unsupported feature", "suspended (the data ended early)",
                                        "the output stage stopped (corrupt image or alpha data)",
                                        "not enough data"};
    return status >= 0 && status < 8 ? names[status] : "unknown status";
}

int ck_webp_decode(ck_webp_decode_request *request) {
    if (!ck_webp_available()) {
        snprintf(request->message, sizeof request->message, "libwebp.so.7 is not installed");
        return CK_STATUS_CANNOT_OPEN;
    }
    ck_webp_decoder_config config;
    if (!ck_webp.init_decoder_config(&config, ck_webp_decoder_abi)) {
        snprintf(request->message, sizeof request->message, "libwebp refused its decoder ABI");
        return CK_STATUS_CANNOT_OPEN;
    }
    int pixel = request->channels == 4 ? 4 : 3;
    if (request->width == 0 || request->height == 0 || request->x > request->image_width ||
        request->width > request->image_width - request->x || request->y > request->image_height ||
        request->height > request->image_height - request->y) {
        snprintf(request->message, sizeof request->message, "the rect is not inside the image");
        return CK_STATUS_CORRUPT;
    }
    // libwebp crops from an even origin (its chroma grid), and a lossy
    // crop's edge pixels are upsampled from chroma it did not decode: the
    // rect is decoded with a margin of one chroma sample (2 pixels) where
    // the image has one, from an even origin, and cut out of that.
    uint32_t margin = request->lossy ? 2 : 0;
    uint32_t left = (request->x & ~1u) > margin ? (request->x & ~1u) - margin : 0;
    uint32_t top = (request->y & ~1u) > margin ? (request->y & ~1u) - margin : 0;
    if (request->from_top) top = 0;
    uint32_t right = request->image_width - (request->x + request->width) > margin ? request->x + request->width + margin
                                                                                    : request->image_width;
    uint32_t bottom = request->image_height - (request->y + request->height) > margin
                          ? request->y + request->height + margin
                          : request->image_height;
    uint32_t skip_x = request->x - left, skip_y = request->y - top;
    uint32_t width = right - left, height = bottom - top;
    uint8_t *decoded = request->destination;
    size_t stride = request->destination_stride;
    if (skip_x || skip_y || width != request->width) {
        stride = (size_t)width * (size_t)pixel;
        decoded = malloc(stride * height);
        if (decoded == NULL) return CK_STATUS_OUT_OF_MEMORY;
    }
    config.options.use_cropping = 1;
    config.options.crop_left = (int)left;
    config.options.crop_top = (int)top;
    config.options.crop_width = (int)width;
    config.options.crop_height = (int)height;
    config.options.use_threads = 1;
    config.output.colorspace = pixel == 4 ? ck_webp_mode_rgba : ck_webp_mode_rgb;
    config.output.is_external_memory = 1;
    config.output.u.RGBA.rgba = decoded;
    config.output.u.RGBA.stride = (int)stride;
    config.output.u.RGBA.size = stride * height;
    int status = CK_STATUS_OK;
    struct ck_webp_idec *idec = ck_webp.idecode(NULL, 0, &config);
    if (idec == NULL) {
        snprintf(request->message, sizeof request->message, "libwebp could not start decoding");
        status = CK_STATUS_OUT_OF_MEMORY;
        goto done;
    }
    // Fed in pieces, so that rows are reported as they are decoded and the
    // decode stops once the rect's last row is out.
    size_t fed = 0, piece = 64 << 10;
    uint32_t reported = 0;
    for (;;) {
        size_t next = request->file_size - fed < piece ? request->file_size : fed + piece;
        int code = ck_webp.iupdate(idec, request->file, next);
        fed = next;
        int last_y = 0, w = 0, h = 0, s = 0;
        ck_webp.idec_get_rgb(idec, &last_y, &w, &h, &s);
        if (last_y < 0) last_y = 0;
        if ((uint32_t)last_y > height) last_y = (int)height;
        uint32_t done_rows = (uint32_t)last_y > skip_y ? (uint32_t)last_y - skip_y : 0;
        if (done_rows > request->height) done_rows = request->height;
        if (done_rows > reported) {
            if (decoded != request->destination)
                for (uint32_t y = reported; y < done_rows; y++)
                    memcpy(request->destination + (size_t)y * request->destination_stride,
                           decoded + (size_t)(y + skip_y) * stride + (size_t)skip_x * (size_t)pixel,
                           (size_t)request->width * (size_t)pixel);
            reported = done_rows;
            if (request->ready) request->ready(request->context, reported);
        }
        if (code == ck_vp8_status_ok || reported == request->height) break;
        if (code != ck_vp8_status_suspended || fed == request->file_size) {
            snprintf(request->message, sizeof request->message, "libwebp: %s after %u of %u rows",
                     ck_webp_status_name(code), reported, request->height);
            status = code == ck_vp8_status_out_of_memory ? CK_STATUS_OUT_OF_MEMORY : CK_STATUS_CORRUPT;
            break;
        }
    }
    if (status == CK_STATUS_OK && reported < request->height) {
        snprintf(request->message, sizeof request->message, "libwebp gave %u of %u rows", reported,
                 request->height);
        status = CK_STATUS_CORRUPT;
    }
done:
    if (idec) ck_webp.idelete(idec);
    if (decoded != request->destination) free(decoded);
    return status;
}

int ck_webp_encode(ck_webp_encode_request *request) {
    if (!ck_webp_can_encode()) {
        snprintf(request->message, sizeof request->message, "libwebp.so.7 here cannot encode");
        return CK_STATUS_CANNOT_OPEN;
    }
    ck_webp_config config;
    if (!ck_webp.config_init(&config, 0 /* default preset */, (float)request->quality, ck_webp_encoder_abi)) {
        snprintf(request->message, sizeof request->message, "libwebp refused its encoder ABI");
        return CK_STATUS_CANNOT_OPEN;
    }
    if (request->lossless) {
        ck_webp.config_lossless_preset(&config, (int)request->lossless_level);
        // Every sample kept, even the colour under transparent pixels.
        config.exact = 1;
    } else {
        config.method = (int)request->method;
    }
    config.thread_level = 1;
    ck_webp_picture picture;
    if (!ck_webp.picture_init(&picture, ck_webp_encoder_abi)) {
        snprintf(request->message, sizeof request->message, "libwebp refused its encoder ABI");
        return CK_STATUS_CANNOT_OPEN;
    }
    picture.use_argb = request->lossless ? 1 : 0;
    picture.width = (int)request->width;
    picture.height = (int)request->height;
    ck_webp_memory_writer writer;
    ck_webp.memory_writer_init(&writer);
    int ok = request->channels == 4 ? ck_webp.import_rgba(&picture, request->pixels, (int)request->stride)
                                    : ck_webp.import_rgb(&picture, request->pixels, (int)request->stride);
    int status = CK_STATUS_OK;
    if (!ok) {
        snprintf(request->message, sizeof request->message, "libwebp could not take the pixels");
        status = CK_STATUS_OUT_OF_MEMORY;
    } else {
        picture.writer = ck_webp.memory_write;
        picture.custom_ptr = &writer;
        if (!ck_webp.encode(&config, &picture)) {
            snprintf(request->message, sizeof request->message, "libwebp encoding error %d", picture.error_code);
            status = picture.error_code == 1 || picture.error_code == 2 ? CK_STATUS_OUT_OF_MEMORY : CK_STATUS_CORRUPT;
        } else {
            request->output = malloc(writer.size ? writer.size : 1);
            if (request->output == NULL) {
                status = CK_STATUS_OUT_OF_MEMORY;
            } else {
                memcpy(request->output, writer.mem, writer.size);
                request->output_size = writer.size;
            }
        }
    }
    ck_webp.picture_free(&picture);
    ck_webp.memory_writer_clear(&writer);
    return status;
}
