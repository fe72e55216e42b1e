// Crop-aware JPEG reading through libjpeg-turbo. libjpeg reports errors by
// longjmp; the setjmp is here and nowhere else.
#include "jpeg_internal.h"

#include <stdlib.h>
#include <string.h>

static void ck_jpeg_error_exit(j_common_ptr cinfo) {
    ck_jpeg_error *error = (ck_jpeg_error *)cinfo->err;
    char text[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, text);
    snprintf(error->message, error->message_size, "%s", text);
    int code = cinfo->err->msg_code;
    if (code == JERR_OUT_OF_MEMORY || code == JERR_NO_BACKING_STORE || code == JERR_TFILE_CREATE) {
        error->out_of_memory = 1;
    }
    longjmp(error->jump, 1);
}

static void ck_jpeg_emit_message(j_common_ptr cinfo, int level) {
    if (level >= 0) return;  // trace messages
    ck_jpeg_error *error = (ck_jpeg_error *)cinfo->err;
    *error->warnings += 1;
    if (*error->warnings == 1) {
        char text[JMSG_LENGTH_MAX];
        (*cinfo->err->format_message)(cinfo, text);
        snprintf(error->message, error->message_size, "%s", text);
    }
    // A warning is corrupt data that libjpeg stepped over: an error unless
    // the caller asked for leniency.
    if (!error->lenient) longjmp(error->jump, 1);
}

void ck_jpeg_install_errors(j_common_ptr cinfo, ck_jpeg_error *error, char *message, size_t message_size,
                            int *warnings, int lenient) {
    cinfo->err = jpeg_std_error(&error->manager);
    error->manager.error_exit = ck_jpeg_error_exit;
    error->manager.emit_message = ck_jpeg_emit_message;
    error->message = message;
    error->message_size = message_size;
    error->warnings = warnings;
    error->lenient = lenient;
    error->out_of_memory = 0;
}

typedef struct {
    struct jpeg_progress_mgr progress;
    ck_jpeg_read_request *request;
} ck_jpeg_progress;

static void ck_jpeg_progress_monitor(j_common_ptr cinfo) {
    ck_jpeg_progress *progress = (ck_jpeg_progress *)cinfo->progress;
    j_decompress_ptr decompress = (j_decompress_ptr)cinfo;
    if (decompress->input_scan_number > progress->request->scans) {
        progress->request->scans = decompress->input_scan_number;
    }
    if (decompress->progressive_mode && decompress->input_scan_number > progress->request->source.max_scans) {
        snprintf(progress->request->message, sizeof progress->request->message,
                 "progressive JPEG has more than %d scans", progress->request->source.max_scans);
        longjmp(((ck_jpeg_error *)cinfo->err)->jump, 2);
    }
}

// A data source reading the file in 1 MiB pieces. libjpeg-turbo's Huffman
// decoder takes its fast path only while at least 512 bytes are buffered;
// with jpeg_stdio_src's 4 KiB buffer it fell to the slow path (one bit
// buffer refill at a time) for an eighth of every buffer.
typedef struct {
    struct jpeg_source_mgr manager;
    const ck_input *input;
    uint64_t next;  // the input offset of the next fill
    JOCTET *buffer;
    int started;
} ck_jpeg_source;

enum { ck_jpeg_source_size = 1 << 20 };

static void ck_source_init(j_decompress_ptr cinfo) { ((ck_jpeg_source *)cinfo->src)->started = 0; }

static boolean ck_source_fill(j_decompress_ptr cinfo) {
    ck_jpeg_source *source = (ck_jpeg_source *)cinfo->src;
    long read = ck_input_read(source->input, source->next, source->buffer, ck_jpeg_source_size);
    if (read < 0) ERREXIT(cinfo, JERR_FILE_READ);
    size_t got = (size_t)read;
    source->next += got;
    if (got == 0) {
        // As jpeg_stdio_src does: an empty file is an error; at the end of
        // data, a warning and a fake EOI marker.
        if (!source->started) ERREXIT(cinfo, JERR_INPUT_EMPTY);
        WARNMS(cinfo, JWRN_JPEG_EOF);
        source->buffer[0] = (JOCTET)0xFF;
        source->buffer[1] = (JOCTET)JPEG_EOI;
        got = 2;
    }
    source->manager.next_input_byte = source->buffer;
    source->manager.bytes_in_buffer = got;
    source->started = 1;
    return TRUE;
}

static void ck_source_skip(j_decompress_ptr cinfo, long count) {
    struct jpeg_source_mgr *manager = cinfo->src;
    if (count <= 0) return;
    while (count > (long)manager->bytes_in_buffer) {
        count -= (long)manager->bytes_in_buffer;
        (void)(*manager->fill_input_buffer)(cinfo);
    }
    manager->next_input_byte += (size_t)count;
    manager->bytes_in_buffer -= (size_t)count;
}

static void ck_source_term(j_decompress_ptr cinfo) { (void)cinfo; }

uint64_t ck_jpeg_input_offset(j_decompress_ptr cinfo) {
    ck_jpeg_source *source = (ck_jpeg_source *)cinfo->src;
    return source->next - source->manager.bytes_in_buffer;
}

void ck_jpeg_use_input(j_decompress_ptr cinfo, const ck_input *input) {
    ck_jpeg_source *source = (ck_jpeg_source *)(*cinfo->mem->alloc_small)((j_common_ptr)cinfo, JPOOL_PERMANENT,
                                                                            sizeof(ck_jpeg_source));
    source->buffer = (JOCTET *)(*cinfo->mem->alloc_large)((j_common_ptr)cinfo, JPOOL_PERMANENT,
                                                          ck_jpeg_source_size);
    source->input = input;
    source->next = 0;
    source->manager.init_source = ck_source_init;
    source->manager.fill_input_buffer = ck_source_fill;
    source->manager.skip_input_data = ck_source_skip;
    source->manager.resync_to_restart = jpeg_resync_to_restart;
    source->manager.term_source = ck_source_term;
    source->manager.bytes_in_buffer = 0;
    source->manager.next_input_byte = NULL;
    cinfo->src = &source->manager;
}

int ck_jpeg_read_crop(const ck_input *input, ck_jpeg_read_request *request) {
    request->warnings = 0;
    request->scans = 0;
    request->out_channels = 0;
    request->message[0] = '\0';
    struct jpeg_decompress_struct cinfo;
    ck_jpeg_error error;
    ck_jpeg_progress progress;
    uint8_t *volatile row = NULL;
    volatile int status = CK_STATUS_CORRUPT;
    ck_jpeg_install_errors((j_common_ptr)&cinfo, &error, request->message, sizeof request->message,
                           &request->warnings, request->source.lenient);
    int jumped = setjmp(error.jump);
    if (jumped) {
        free(row);
        jpeg_destroy_decompress(&cinfo);
        return jumped == 2 ? CK_STATUS_LIMIT : ck_jpeg_failure(&error, status);
    }
    jpeg_create_decompress(&cinfo);
    cinfo.mem->max_memory_to_use = request->source.max_memory;
    progress.progress.progress_monitor = ck_jpeg_progress_monitor;
    progress.request = request;
    cinfo.progress = &progress.progress;
    ck_jpeg_use_input(&cinfo, input);
    jpeg_read_header(&cinfo, TRUE);
    if (cinfo.image_width != request->source.width || cinfo.image_height != request->source.height ||
        cinfo.num_components != request->source.components) {
        status = CK_STATUS_MISMATCH;
        snprintf(request->message, sizeof request->message, "libjpeg read a different frame header than the scan");
        longjmp(error.jump, 1);
    }
    unsigned int denom = request->scale_denom == 0 ? 1 : request->scale_denom;
    if (denom != 1 && denom != 2 && denom != 4 && denom != 8) {
        status = CK_STATUS_MISMATCH;
        snprintf(request->message, sizeof request->message, "the scale must be 1/1, 1/2, 1/4 or 1/8");
        longjmp(error.jump, 1);
    }
    int cmyk = cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK;
    int gray = cinfo.jpeg_color_space == JCS_GRAYSCALE;
    cinfo.out_color_space = cmyk ? JCS_CMYK : (gray ? JCS_GRAYSCALE : JCS_RGB);
    // libjpeg-turbo's defaults otherwise: islow DCT, fancy upsampling.
    cinfo.dct_method = JDCT_ISLOW;
    if (request->plain_upsampling) cinfo.do_fancy_upsampling = FALSE;
    cinfo.scale_num = 1;
    cinfo.scale_denom = denom;
    jpeg_calc_output_dimensions(&cinfo);
    if ((uint64_t)request->source.crop_x + request->source.crop_width > cinfo.output_width ||
        (uint64_t)request->source.crop_y + request->source.crop_height > cinfo.output_height ||
        request->source.crop_width == 0 || request->source.crop_height == 0) {
        status = CK_STATUS_MISMATCH;
        snprintf(request->message, sizeof request->message, "the crop does not lie inside the image");
        longjmp(error.jump, 1);
    }
    jpeg_start_decompress(&cinfo);
    int in_channels = cinfo.output_components;
    int out_channels = gray ? 1 : 3;
    request->out_channels = out_channels;
    size_t crop_row_bytes = (size_t)request->source.crop_width * (size_t)out_channels;
    if (request->pixels == NULL || request->pixels_size != crop_row_bytes * request->source.crop_height) {
        status = CK_STATUS_MISMATCH;
        snprintf(request->message, sizeof request->message, "the pixel buffer does not match the crop");
        longjmp(error.jump, 1);
    }
    // Columns: jpeg_crop_scanline treats the region's own edges as image
    // edges for the fancy chroma upsampler, so decode a margin of one column
    // on the left and twice the largest horizontal sampling factor on the
    // right (clamped to the image), then cut the exact columns.
    int h_max = cinfo.max_h_samp_factor > 0 ? cinfo.max_h_samp_factor : 1;
    JDIMENSION start = request->source.crop_x > 0 ? request->source.crop_x - 1 : 0;
    JDIMENSION end = request->source.crop_x + request->source.crop_width + 2 * (JDIMENSION)h_max;
    if (end > cinfo.output_width) end = cinfo.output_width;
    JDIMENSION xoffset = start;
    JDIMENSION width = end - start;
    if (xoffset != 0 || width != cinfo.output_width) jpeg_crop_scanline(&cinfo, &xoffset, &width);
    JDIMENSION column = request->source.crop_x - xoffset;
    row = malloc((size_t)cinfo.output_width * (size_t)in_channels);
    if (row == NULL) {
        status = CK_STATUS_OUT_OF_MEMORY;
        snprintf(request->message, sizeof request->message, "out of memory for one row");
        longjmp(error.jump, 1);
    }
    if (request->source.crop_y > 0) {
        JDIMENSION skipped = jpeg_skip_scanlines(&cinfo, request->source.crop_y);
        if (skipped != request->source.crop_y) {
            snprintf(request->message, sizeof request->message, "JPEG data ends before the crop");
            longjmp(error.jump, 1);
        }
    }
    for (uint32_t y = 0; y < request->source.crop_height; y++) {
        JSAMPROW rows[1] = {row};
        if (jpeg_read_scanlines(&cinfo, rows, 1) != 1) {
            snprintf(request->message, sizeof request->message, "JPEG data ends before the crop's last row");
            longjmp(error.jump, 1);
        }
        uint8_t *target = request->pixels + (size_t)y * crop_row_bytes;
        const uint8_t *source = row + (size_t)column * (size_t)in_channels;
        if (cmyk) {
            // Adobe writes CMYK inverted (as libjpeg returns it): each
            // channel times K over 255, rounded.
            for (uint32_t x = 0; x < request->source.crop_width; x++) {
                const uint8_t *p = source + 4 * (size_t)x;
                target[3 * x] = (uint8_t)((p[0] * p[3] + 127) / 255);
                target[3 * x + 1] = (uint8_t)((p[1] * p[3] + 127) / 255);
                target[3 * x + 2] = (uint8_t)((p[2] * p[3] + 127) / 255);
            }
        } else {
            memcpy(target, source, crop_row_bytes);
        }
        if (request->rows_ready) request->rows_ready(request->rows_context, y + 1);
    }
    free(row);
    row = NULL;
    // Rows below the crop are never decoded.
    jpeg_abort_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    return CK_STATUS_OK;
}
