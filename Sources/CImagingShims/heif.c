// HEVC-coded HEIF images through libheif, loaded at run time (dlopen of
// libheif.so.1): no -dev package is needed to build, and a machine without
// libheif still runs everything else. CropKit parses the HEIF container
// itself and hands libheif one coded image at a time, wrapped as a minimal
// one-item HEIF in memory that CropKit wrote: libheif never sees the
// source file's boxes, so a hostile container cannot reach it.
#include "CImagingShims.h"
#include "loader_internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The few libheif functions and values CropKit uses, declared here as
// libheif/heif.h declares them (libheif 1.x ABI, stable since 1.4).
struct heif_context;
struct heif_image_handle;
struct heif_image;
struct heif_error {
    int code;
    int subcode;
    const char *message;
};
enum { ck_heif_colorspace_RGB = 1, ck_heif_colorspace_monochrome = 2 };
enum {
    ck_heif_chroma_monochrome = 0,
    ck_heif_chroma_interleaved_RGB = 10,
    ck_heif_chroma_interleaved_RRGGBB_BE = 12
};
enum { ck_heif_channel_Y = 0, ck_heif_channel_interleaved = 10 };
// heif_color_profile_nclx's first fields, as libheif/heif.h declares them.
struct ck_heif_nclx {
    uint8_t version;
    int color_primaries, transfer_characteristics, matrix_coefficients;
    uint8_t full_range_flag;
};

typedef struct heif_context *(*ck_heif_context_alloc_fn)(void);
typedef void (*ck_heif_context_free_fn)(struct heif_context *);
typedef struct heif_error (*ck_heif_read_memory_fn)(struct heif_context *, const void *, size_t, const void *);
typedef struct heif_error (*ck_heif_primary_handle_fn)(struct heif_context *, struct heif_image_handle **);
typedef void (*ck_heif_handle_release_fn)(const struct heif_image_handle *);
typedef struct heif_error (*ck_heif_decode_image_fn)(const struct heif_image_handle *, struct heif_image **, int, int,
                                                     const void *);
typedef void (*ck_heif_image_release_fn)(const struct heif_image *);
typedef const uint8_t *(*ck_heif_plane_fn)(const struct heif_image *, int, int *);
typedef int (*ck_heif_image_size_fn)(const struct heif_image *, int);
typedef const char *(*ck_heif_version_fn)(void);
struct heif_encoder;
struct heif_image_handle;
struct heif_writer {
    int writer_api_version;
    struct heif_error (*write)(struct heif_context *, const void *, size_t, void *);
};
typedef struct heif_error (*ck_heif_image_create_fn)(int, int, int, int, struct heif_image **);
typedef struct heif_error (*ck_heif_add_plane_fn)(struct heif_image *, int, int, int, int);
typedef uint8_t *(*ck_heif_plane_rw_fn)(struct heif_image *, int, int *);
typedef struct heif_error (*ck_heif_get_encoder_fn)(struct heif_context *, int, struct heif_encoder **);
typedef void (*ck_heif_encoder_release_fn)(struct heif_encoder *);
typedef struct heif_error (*ck_heif_encoder_int_fn)(struct heif_encoder *, int);
typedef struct heif_error (*ck_heif_encoder_string_fn)(struct heif_encoder *, const char *, const char *);
typedef struct heif_error (*ck_heif_encode_fn)(struct heif_context *, const struct heif_image *, struct heif_encoder *,
                                               const void *, struct heif_image_handle **);
typedef struct heif_error (*ck_heif_write_fn)(struct heif_context *, struct heif_writer *, void *);

typedef struct {
    ck_heif_context_alloc_fn context_alloc;
    ck_heif_context_free_fn context_free;
    ck_heif_read_memory_fn read_memory;
    ck_heif_primary_handle_fn primary_handle;
    ck_heif_handle_release_fn handle_release;
    ck_heif_decode_image_fn decode_image;
    ck_heif_image_release_fn image_release;
    ck_heif_plane_fn plane;
    ck_heif_image_size_fn image_width;
    ck_heif_image_size_fn image_height;
    ck_heif_version_fn version;
    // Encoding (edge tiles of a HEIC crop); optional: without them only
    // lossless HEIC crops are made.
    ck_heif_image_create_fn image_create;
    ck_heif_add_plane_fn add_plane;
    ck_heif_plane_rw_fn plane_rw;
    ck_heif_get_encoder_fn get_encoder;
    ck_heif_encoder_release_fn encoder_release;
    ck_heif_encoder_int_fn set_quality;
    ck_heif_encoder_int_fn set_lossless;
    ck_heif_encoder_string_fn set_parameter;
    ck_heif_encode_fn encode_image;
    ck_heif_write_fn write;
    // Metadata of a whole image encoded (an AVIF from pixels); optional.
    struct heif_error (*set_raw_profile)(struct heif_image *, const char *, const void *, size_t);
    struct heif_error (*add_exif)(struct heif_context *, const struct heif_image_handle *, const void *, int);
    struct heif_error (*add_xmp)(struct heif_context *, const struct heif_image_handle *, const void *, int);
    struct ck_heif_nclx *(*nclx_alloc)(void);
    void (*nclx_free)(struct ck_heif_nclx *);
    struct heif_error (*set_nclx)(struct heif_image *, const struct ck_heif_nclx *);
} ck_heif_table;

static ck_heif_table ck_heif;

static const char *const ck_heif_sonames[] = {"libheif.so.1", "libheif.1.dylib", "/opt/homebrew/lib/libheif.1.dylib",
                                              "/usr/local/lib/libheif.1.dylib"};

// Decoding needs the required ones; encoding (edge tiles of a HEIC crop) the
// optional rest: without them only lossless HEIC crops are made.
#define CK_HEIF_SYMBOL(field, name, required) {name, offsetof(ck_heif_table, field), required}
static const ck_symbol ck_heif_symbols[] = {
    CK_HEIF_SYMBOL(context_alloc, "heif_context_alloc", 1),
    CK_HEIF_SYMBOL(context_free, "heif_context_free", 1),
    CK_HEIF_SYMBOL(read_memory, "heif_context_read_from_memory_without_copy", 1),
    CK_HEIF_SYMBOL(primary_handle, "heif_context_get_primary_image_handle", 1),
    CK_HEIF_SYMBOL(handle_release, "heif_image_handle_release", 1),
    CK_HEIF_SYMBOL(decode_image, "heif_decode_image", 1),
    CK_HEIF_SYMBOL(image_release, "heif_image_release", 1),
    CK_HEIF_SYMBOL(plane, "heif_image_get_plane_readonly", 1),
    CK_HEIF_SYMBOL(image_width, "heif_image_get_width", 1),
    CK_HEIF_SYMBOL(image_height, "heif_image_get_height", 1),
    CK_HEIF_SYMBOL(version, "heif_get_version", 1),
    CK_HEIF_SYMBOL(image_create, "heif_image_create", 0),
    CK_HEIF_SYMBOL(add_plane, "heif_image_add_plane", 0),
    CK_HEIF_SYMBOL(plane_rw, "heif_image_get_plane", 0),
    CK_HEIF_SYMBOL(get_encoder, "heif_context_get_encoder_for_format", 0),
    CK_HEIF_SYMBOL(encoder_release, "heif_encoder_release", 0),
    CK_HEIF_SYMBOL(set_quality, "heif_encoder_set_lossy_quality", 0),
    CK_HEIF_SYMBOL(set_lossless, "heif_encoder_set_lossless", 0),
    CK_HEIF_SYMBOL(set_parameter, "heif_encoder_set_parameter", 0),
    CK_HEIF_SYMBOL(encode_image, "heif_context_encode_image", 0),
    CK_HEIF_SYMBOL(write, "heif_context_write", 0),
    CK_HEIF_SYMBOL(set_raw_profile, "heif_image_set_raw_color_profile", 0),
    CK_HEIF_SYMBOL(add_exif, "heif_context_add_exif_metadata", 0),
    CK_HEIF_SYMBOL(add_xmp, "heif_context_add_XMP_metadata", 0),
    CK_HEIF_SYMBOL(nclx_alloc, "heif_nclx_color_profile_alloc", 0),
    CK_HEIF_SYMBOL(nclx_free, "heif_nclx_color_profile_free", 0),
    CK_HEIF_SYMBOL(set_nclx, "heif_image_set_nclx_color_profile", 0),
};

static ck_library ck_heif_library = {ck_heif_sonames, sizeof ck_heif_sonames / sizeof ck_heif_sonames[0],
                                     ck_heif_symbols, sizeof ck_heif_symbols / sizeof ck_heif_symbols[0],
                                     &ck_heif, sizeof ck_heif, 0};

int ck_heif_available(void) { return ck_library_load(&ck_heif_library); }

const char *ck_heif_version(void) {
    return ck_heif_available() ? ck_heif.version() : NULL;
}

// Says what failed, and libheif's words for it, in a request's message.
static int ck_heif_say(char *message, size_t size, int status, const char *what, struct heif_error error) {
    snprintf(message, size, "%s: %s (libheif error %d/%d)", what, error.message ? error.message : "no message",
             error.code, error.subcode);
    return status;
}
// libheif's heif_error_Memory_allocation_error (6) is memory, whatever the
// caller would call the failure otherwise.
#define ck_heif_fail(request, status, what, error)                                                     \
    ck_heif_say((request)->message, sizeof (request)->message, (error).code == 6 ? CK_STATUS_OUT_OF_MEMORY : (status), \
                what, error)

int ck_heif_decode(ck_heif_decode_request *request) {
    if (!ck_heif_available()) {
        snprintf(request->message, sizeof request->message, "libheif.so.1 is not installed");
        return CK_STATUS_CANNOT_OPEN;
    }
    struct heif_context *context = ck_heif.context_alloc();
    if (context == NULL) return CK_STATUS_OUT_OF_MEMORY;
    int status = CK_STATUS_OK;
    struct heif_image_handle *handle = NULL;
    struct heif_image *image = NULL;
    struct heif_error error = ck_heif.read_memory(context, request->file, request->file_size, NULL);
    if (error.code != 0) {
        status = ck_heif_fail(request, CK_STATUS_CORRUPT, "its decoder configuration or data was refused", error);
        goto done;
    }
    error = ck_heif.primary_handle(context, &handle);
    if (error.code != 0) {
        status = ck_heif_fail(request, CK_STATUS_CORRUPT, "its decoder configuration or data was refused", error);
        goto done;
    }
    int colorspace, chroma, channel, bytes;
    if (request->planar_monochrome) {
        error = ck_heif.decode_image(handle, &image, ck_heif_colorspace_monochrome, ck_heif_chroma_monochrome, NULL);
        if (error.code != 0) {
            status = ck_heif_fail(request, CK_STATUS_CORRUPT, "decoding the coded data", error);
            goto done;
        }
        int sample = request->bit_depth > 8 ? 2 : 1;
        int stride = 0;
        const uint8_t *data = ck_heif.plane(image, ck_heif_channel_Y, &stride);
        int width = ck_heif.image_width(image, ck_heif_channel_Y);
        int height = ck_heif.image_height(image, ck_heif_channel_Y);
        if (data == NULL || width <= 0 || height <= 0 || (size_t)width > request->plane_width[0] ||
            (size_t)height > request->plane_height[0]) {
            snprintf(request->message, sizeof request->message, "the plane decoded as %dx%d", width, height);
            status = CK_STATUS_CORRUPT;
            goto done;
        }
        for (int y = 0; y < height; y++)
            memcpy(request->planes[0] + (size_t)y * request->plane_width[0] * (size_t)sample,
                   data + (size_t)y * (size_t)stride, (size_t)width * (size_t)sample);
        goto done;
    }
    if (request->planar_chroma > 0) {
        // Coded RGB (matrix 0) comes back as planes R, G, B: coded as
        // G, B, R, which is what the planes must hold.
        static const int rgb_channels[3] = {4, 5, 3};
        static const int ycbcr_channels[3] = {0, 1, 2};
        const int *channels = request->planar_rgb ? rgb_channels : ycbcr_channels;
        error = ck_heif.decode_image(handle, &image, request->planar_rgb ? 1 : 0, request->planar_chroma, NULL);
        if (error.code != 0) {
            status = ck_heif_fail(request, CK_STATUS_CORRUPT, "decoding the coded data", error);
            goto done;
        }
        int sample = request->bit_depth > 8 ? 2 : 1;
        for (int plane = 0; plane < 3; plane++) {
            int stride = 0;
            const uint8_t *data = ck_heif.plane(image, channels[plane], &stride);
            int width = ck_heif.image_width(image, channels[plane]);
            int height = ck_heif.image_height(image, channels[plane]);
            if (data == NULL || width <= 0 || height <= 0 || (size_t)width > request->plane_width[plane] ||
                (size_t)height > request->plane_height[plane]) {
                snprintf(request->message, sizeof request->message, "plane %d decoded as %dx%d", plane, width,
                         height);
                status = CK_STATUS_CORRUPT;
                goto done;
            }
            for (int y = 0; y < height; y++)
                memcpy(request->planes[plane] + (size_t)y * request->plane_width[plane] * (size_t)sample,
                       data + (size_t)y * (size_t)stride, (size_t)width * (size_t)sample);
        }
        goto done;
    }
    if (request->channels == 1) {
        colorspace = ck_heif_colorspace_monochrome;
        chroma = ck_heif_chroma_monochrome;
        channel = ck_heif_channel_Y;
        bytes = request->bit_depth > 8 ? 2 : 1;
    } else {
        colorspace = ck_heif_colorspace_RGB;
        chroma = request->bit_depth > 8 ? ck_heif_chroma_interleaved_RRGGBB_BE : ck_heif_chroma_interleaved_RGB;
        channel = ck_heif_channel_interleaved;
        bytes = request->bit_depth > 8 ? 6 : 3;
    }
    error = ck_heif.decode_image(handle, &image, colorspace, chroma, NULL);
    if (error.code != 0) {
        status = ck_heif_fail(request, CK_STATUS_CORRUPT, "decoding the coded data", error);
        goto done;
    }
    int width = ck_heif.image_width(image, channel);
    int height = ck_heif.image_height(image, channel);
    if (width < 0 || height < 0 || (uint32_t)width < request->source_x + request->width ||
        (uint32_t)height < request->source_y + request->height) {
        snprintf(request->message, sizeof request->message,
                 "the coded image decoded to %dx%d, smaller than its declared size", width, height);
        status = CK_STATUS_CORRUPT;
        goto done;
    }
    int stride = 0;
    const uint8_t *plane = ck_heif.plane(image, channel, &stride);
    if (plane == NULL || stride <= 0) {
        snprintf(request->message, sizeof request->message, "libheif gave no pixel plane");
        status = CK_STATUS_CORRUPT;
        goto done;
    }
    // 16-bit samples come big-endian, holding the coded value (0..1023 at
    // 10 bits): what the destination stores unchanged.
    size_t row_bytes = (size_t)request->width * (size_t)bytes;
    for (uint32_t y = 0; y < request->height; y++) {
        const uint8_t *from = plane + (size_t)(request->source_y + y) * (size_t)stride +
                              (size_t)request->source_x * (size_t)bytes;
        uint8_t *to = request->destination + (size_t)y * request->destination_stride;
        if (request->scale_bits > 8 && request->scale_bits < 16 && bytes % 2 == 0) {
            uint32_t up = 16 - request->scale_bits, down = 2 * request->scale_bits - 16;
            for (uint32_t x = 0; x < request->width; x++) {
                uint8_t *pixel = to + (size_t)x * request->destination_pixel_bytes;
                const uint8_t *coded = from + (size_t)x * (size_t)bytes;
                for (int i = 0; i < bytes; i += 2) {
                    uint32_t value = (uint32_t)coded[i] << 8 | coded[i + 1];
                    uint32_t scaled = (value << up | value >> down) & 0xFFFF;
                    pixel[i] = (uint8_t)(scaled >> 8);
                    pixel[i + 1] = (uint8_t)scaled;
                }
            }
        } else if (request->destination_pixel_bytes == (uint32_t)bytes) {
            memcpy(to, from, row_bytes);
        } else {
            // Alpha into the fourth sample of an RGBA destination.
            for (uint32_t x = 0; x < request->width; x++)
                memcpy(to + (size_t)x * request->destination_pixel_bytes, from + (size_t)x * (size_t)bytes,
                       (size_t)bytes);
        }
    }
done:
    if (image) ck_heif.image_release(image);
    if (handle) ck_heif.handle_release(handle);
    ck_heif.context_free(context);
    return status;
}

int ck_heif_can_encode(void) {
    return ck_heif_available() && ck_heif.image_create && ck_heif.add_plane && ck_heif.plane_rw &&
           ck_heif.get_encoder && ck_heif.encoder_release && ck_heif.set_quality && ck_heif.set_lossless &&
           ck_heif.encode_image && ck_heif.write;
}

struct ck_heif_buffer {
    uint8_t *bytes;
    size_t size, capacity;
    int failed;
};

static struct heif_error ck_heif_collect(struct heif_context *context, const void *data, size_t size, void *user) {
    (void)context;
    struct ck_heif_buffer *buffer = user;
    struct heif_error ok = {0, 0, "Success"};
    if (buffer->failed) return ok;
    if (buffer->size + size > buffer->capacity) {
        size_t capacity = (buffer->size + size) * 2;
        uint8_t *grown = realloc(buffer->bytes, capacity);
        if (grown == NULL) {
            buffer->failed = 1;
            return ok;
        }
        buffer->bytes = grown;
        buffer->capacity = capacity;
    }
    memcpy(buffer->bytes + buffer->size, data, size);
    buffer->size += size;
    return ok;
}

int ck_heif_encode_planes(ck_heif_encode_request *request) {
    if (!ck_heif_can_encode()) {
        snprintf(request->message, sizeof request->message, "libheif here has no HEVC encoder");
        return CK_STATUS_CANNOT_OPEN;
    }
    struct heif_context *context = ck_heif.context_alloc();
    if (context == NULL) return CK_STATUS_OUT_OF_MEMORY;
    struct heif_image *image = NULL;
    struct heif_encoder *encoder = NULL;
    struct heif_image_handle *handle = NULL;
    struct ck_heif_buffer buffer = {0};
    int status = CK_STATUS_OK;
    int interleaved = request->interleaved_channels == 3 || request->interleaved_channels == 4;
    struct heif_error error =
        interleaved ? ck_heif.image_create((int)request->width, (int)request->height, 1 /* RGB */,
                                           request->interleaved_channels == 4 ? 11 /* RGBA */ : 10 /* RGB */, &image)
        : request->chroma == 0
            ? ck_heif.image_create((int)request->width, (int)request->height, ck_heif_colorspace_monochrome,
                                   ck_heif_chroma_monochrome, &image)
            : ck_heif.image_create((int)request->width, (int)request->height, 0 /* YCbCr */, request->chroma, &image);
    if (error.code != 0) {
        snprintf(request->message, sizeof request->message, "creating a tile image: %s",
                 error.message ? error.message : "no message");
        status = CK_STATUS_OUT_OF_MEMORY;
        goto done;
    }
    int sample = request->bit_depth > 8 ? 2 : 1;
    if (interleaved) {
        error = ck_heif.add_plane(image, 10 /* interleaved */, (int)request->width, (int)request->height, 8);
        int stride = 0;
        uint8_t *data = error.code == 0 ? ck_heif.plane_rw(image, 10, &stride) : NULL;
        if (error.code == 0 && data == NULL) {
            error.code = 1;
            error.message = "no plane";
        }
        size_t row = (size_t)request->width * request->interleaved_channels;
        for (uint32_t y = 0; error.code == 0 && y < request->height; y++)
            memcpy(data + (size_t)y * (size_t)stride, request->planes[0] + (size_t)y * row, row);
        if (error.code == 0 && request->icc && ck_heif.set_raw_profile)
            error = ck_heif.set_raw_profile(image, "prof", request->icc, request->icc_size);
    }
    int plane_count = request->chroma == 0 ? 1 : 3;
    for (int plane = 0; plane < plane_count && !interleaved; plane++) {
        error = ck_heif.add_plane(image, plane, (int)request->plane_width[plane], (int)request->plane_height[plane],
                                  (int)request->bit_depth);
        if (error.code != 0) break;
        int stride = 0;
        uint8_t *data = ck_heif.plane_rw(image, plane, &stride);
        if (data == NULL) {
            error.code = 1;
            error.message = "no plane";
            break;
        }
        for (uint32_t y = 0; y < request->plane_height[plane]; y++)
            memcpy(data + (size_t)y * (size_t)stride,
                   request->planes[plane] + (size_t)y * request->plane_width[plane] * (size_t)sample,
                   (size_t)request->plane_width[plane] * (size_t)sample);
    }
    if (error.code == 0 && request->has_nclx && ck_heif.nclx_alloc && ck_heif.nclx_free && ck_heif.set_nclx) {
        struct ck_heif_nclx *nclx = ck_heif.nclx_alloc();
        if (nclx) {
            nclx->color_primaries = (int)request->nclx_primaries;
            nclx->transfer_characteristics = (int)request->nclx_transfer;
            nclx->matrix_coefficients = (int)request->nclx_matrix;
            nclx->full_range_flag = request->nclx_full_range ? 1 : 0;
            error = ck_heif.set_nclx(image, nclx);
            ck_heif.nclx_free(nclx);
        }
    }
    if (error.code == 0)
        error = ck_heif.get_encoder(context, request->compression == 4 ? 4 /* AV1 */ : 1 /* HEVC */, &encoder);
    if (error.code == 0) error = ck_heif.set_lossless(encoder, 0);
    if (error.code == 0) error = ck_heif.set_quality(encoder, (int)request->quality);
    if (error.code == 0 && ck_heif.set_parameter) {
        // A monochrome image is coded 4:0:0 by the encoder without asking.
        const char *chroma = request->chroma == 1 ? "420" : request->chroma == 2 ? "422" : "444";
        if (request->chroma != 0) ck_heif.set_parameter(encoder, "chroma", chroma);
        for (size_t i = 0; error.code == 0 && i < request->parameter_count; i++)
            error = ck_heif.set_parameter(encoder, request->parameters[2 * i], request->parameters[2 * i + 1]);
    }
    if (error.code == 0) error = ck_heif.encode_image(context, image, encoder, NULL, &handle);
    if (error.code == 0 && request->exif && ck_heif.add_exif)
        error = ck_heif.add_exif(context, handle, request->exif, (int)request->exif_size);
    if (error.code == 0 && request->xmp && ck_heif.add_xmp)
        error = ck_heif.add_xmp(context, handle, request->xmp, (int)request->xmp_size);
    if (error.code == 0) {
        struct heif_writer writer = {1, ck_heif_collect};
        error = ck_heif.write(context, &writer, &buffer);
    }
    if (error.code != 0) {
        status = ck_heif_fail(request, CK_STATUS_CORRUPT, "encoding a tile", error);
    } else if (buffer.failed) {
        status = CK_STATUS_OUT_OF_MEMORY;
    } else {
        request->file = buffer.bytes;
        request->file_size = buffer.size;
        buffer.bytes = NULL;
    }
done:
    free(buffer.bytes);
    if (handle) ck_heif.handle_release(handle);
    if (encoder) ck_heif.encoder_release(encoder);
    if (image) ck_heif.image_release(image);
    ck_heif.context_free(context);
    return status;
}
