// Crop-aware PNG reading through libpng. setjmp lives here and only here.
#include "CImagingShims.h"

#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void ck_png_error(png_structp png, png_const_charp message) {
    ck_png_read_request *request = (ck_png_read_request *)png_get_error_ptr(png);
    snprintf(request->message, sizeof request->message, "%s", message ? message : "libpng error");
    png_longjmp(png, 1);
}

static void ck_png_warning(png_structp png, png_const_charp message) {
    ck_png_read_request *request = (ck_png_read_request *)png_get_error_ptr(png);
    // zlib's check of the Adler-32 after the last row: a benign error to
    // libpng, corrupt data to CropKit.
    if (message != NULL && strstr(message, "incorrect data check") != NULL) request->checksum = -1;
    if (request->warnings == 0 && request->message[0] == '\0') {
        snprintf(request->message, sizeof request->message, "%s", message ? message : "libpng warning");
    }
    request->warnings += 1;
}

// Every ancillary chunk libpng knows: skipped unread (CropKit copies the ones
// it keeps itself, after checking their CRC), so no ancillary chunk can make
// libpng allocate.
static const png_byte ck_ancillary_chunks[] =
    "bKGD\0cHRM\0cICP\0cLLI\0eXIf\0gAMA\0hIST\0iCCP\0iTXt\0mDCV\0oFFs\0pCAL\0pHYs\0"
    "sBIT\0sCAL\0sPLT\0sRGB\0tEXt\0tIME\0tRNS\0zTXt\0";

static int ck_channels(int color_type) {
    switch (color_type) {
    case PNG_COLOR_TYPE_GRAY: return 1;
    case PNG_COLOR_TYPE_PALETTE: return 1;
    case PNG_COLOR_TYPE_GRAY_ALPHA: return 2;
    case PNG_COLOR_TYPE_RGB: return 3;
    case PNG_COLOR_TYPE_RGB_ALPHA: return 4;
    default: return 0;
    }
}

// libpng's reads go through a 1 MiB buffer filled by position from the
// input (libpng asks for 4- and 8-byte pieces between chunk data).
typedef struct {
    const ck_input *input;
    uint64_t next;  // the input offset the buffer's end corresponds to
    uint8_t *buffer;
    size_t start, end;
    // After the last row libpng inflates what is left of the stream to reach
    // its end: a budget for what it may read then, and whether it ran out.
    uint32_t height;
    int interlaced;
    size_t finish_read;
    int stopped;
} ck_png_source;

enum { ck_png_source_size = 1 << 20 };

// What libpng may still read after the image's last row to reach the
// stream's end: its Adler-32 and the end of a block, usually a few bytes;
// a stream that goes on past this much is not inflated further. 64 KiB of
// DEFLATE inflates to at most 66 MB (1032:1), a few hundredths of a second.
enum { ck_png_finish_budget = 1 << 16 };

// Whether libpng has read the last row and is finishing the stream
// (png_read_finish_IDAT): past the last pass, or past the last row.
static int ck_png_finishing(png_structp png, const ck_png_source *source) {
    if (source->interlaced) return png_get_current_pass_number(png) >= 7;
    return png_get_current_row_number(png) >= source->height;
}

static void ck_png_read_data(png_structp png, png_bytep data, size_t length) {
    ck_png_source *source = (ck_png_source *)png_get_io_ptr(png);
    if (ck_png_finishing(png, source)) {
        source->finish_read += length;
        if (source->finish_read > ck_png_finish_budget) {
            source->stopped = 1;
            png_error(png, "the image data goes on after the last row");
        }
    }
    while (length > 0) {
        if (source->start == source->end) {
            long got = ck_input_read(source->input, source->next, source->buffer, ck_png_source_size);
            if (got < 0) png_error(png, "cannot read the file");
            if (got == 0) png_error(png, "unexpected end of the PNG file (truncated)");
            source->next += (uint64_t)got;
            source->start = 0;
            source->end = (size_t)got;
        }
        size_t piece = source->end - source->start;
        if (piece > length) piece = length;
        memcpy(data, source->buffer + source->start, piece);
        source->start += piece;
        data += piece;
        length -= piece;
    }
}

int ck_png_read_crop(const ck_input *input, ck_png_read_request *request) {
    request->warnings = 0;
    request->rows_decoded = 0;
    request->checksum = CK_CHECKSUM_NOT_REACHED;
    request->unread_bytes = 0;
    request->message[0] = '\0';

    ck_png_source source = {input, 0, malloc(ck_png_source_size), 0, 0, request->height, request->interlaced, 0, 0};
    if (source.buffer == NULL) {
        snprintf(request->message, sizeof request->message, "out of memory for the read buffer");
        return CK_STATUS_OUT_OF_MEMORY;
    }
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, request, ck_png_error, ck_png_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (png == NULL || info == NULL) {
        if (png) png_destroy_read_struct(&png, NULL, NULL);
        free(source.buffer);
        snprintf(request->message, sizeof request->message, "out of memory creating the PNG reader");
        return CK_STATUS_OUT_OF_MEMORY;
    }
    // Modified after setjmp, read after a longjmp: volatile.
    uint8_t *volatile row = NULL;
    uint8_t *volatile kept_rows = NULL;
    volatile int status = CK_STATUS_CORRUPT;
    volatile int passes = 1;
    volatile size_t row_bytes = 0, crop_row_bytes = 0, column_offset = 0;

    if (setjmp(png_jmpbuf(png))) {
        // Stopped after the last row (every crop row is in): a result.
        if (source.stopped) goto complete;
        free(row);
        if (kept_rows != request->pixels) free(kept_rows);
        png_destroy_read_struct(&png, &info, NULL);
        free(source.buffer);
        return status;
    }

    png_set_read_fn(png, &source, ck_png_read_data);
    // The caller's scan has already checked every chunk's CRC, so libpng need
    // not compute them again; zlib's Adler-32 of the pixel data is skipped for
    // the same reason (a crop stops before the stream's end anyway).
    png_set_crc_action(png, PNG_CRC_QUIET_USE, PNG_CRC_QUIET_USE);
    // The Adler-32 is checked when the crop reaches the last row, the one
    // case where the stream's end is read; above it, zlib need not sum.
#ifdef PNG_IGNORE_ADLER32
    if (request->crop_y + request->crop_height < request->height)
        png_set_option(png, PNG_IGNORE_ADLER32, PNG_OPTION_ON);
#endif
    png_set_user_limits(png, request->max_width, request->max_height);
    png_set_chunk_cache_max(png, 1000);
    png_set_chunk_malloc_max(png, 8000000);
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, NULL, 0);
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, ck_ancillary_chunks,
                                (int)(sizeof ck_ancillary_chunks / 5));
    png_read_info(png, info);

    png_uint_32 width = 0, height = 0;
    int bit_depth = 0, color_type = 0, interlace = 0;
    png_get_IHDR(png, info, &width, &height, &bit_depth, &color_type, &interlace, NULL, NULL);
    int channels = ck_channels(color_type);
    if (width != request->width || height != request->height || bit_depth != request->bit_depth ||
        color_type != request->color_type || (interlace != PNG_INTERLACE_NONE) != (request->interlaced != 0) ||
        channels == 0) {
        status = CK_STATUS_MISMATCH;
        png_error(png, "libpng read a different header than the file's IHDR chunk");
    }
    if ((uint64_t)request->crop_x + request->crop_width > width ||
        (uint64_t)request->crop_y + request->crop_height > height || request->crop_width == 0 ||
        request->crop_height == 0) {
        status = CK_STATUS_MISMATCH;
        png_error(png, "the crop does not lie inside the image");
    }
    size_t bytes_per_pixel = (size_t)channels * (bit_depth == 16 ? 2 : 1);
    crop_row_bytes = (size_t)request->crop_width * bytes_per_pixel;
    if (request->pixels == NULL || request->pixels_size != crop_row_bytes * request->crop_height) {
        status = CK_STATUS_MISMATCH;
        png_error(png, "the pixel buffer does not match the crop");
    }

    if (bit_depth < 8) png_set_packing(png);
    passes = png_set_interlace_handling(png);
    png_read_update_info(png, info);
    row_bytes = png_get_rowbytes(png, info);
    if (row_bytes != (size_t)width * bytes_per_pixel) {
        status = CK_STATUS_MISMATCH;
        png_error(png, "unexpected row size after unpacking");
    }
    row = malloc(row_bytes);
    if (row == NULL) {
        status = CK_STATUS_OUT_OF_MEMORY;
        png_error(png, "out of memory for one row");
    }
    uint32_t first = request->crop_y;
    uint32_t end = request->crop_y + request->crop_height;
    column_offset = (size_t)request->crop_x * bytes_per_pixel;

    if (passes == 1) {
        for (uint32_t y = 0; y < end; y++) {
            png_read_row(png, row, NULL);
            request->rows_decoded = y + 1;
            if (y >= first) {
                memcpy(request->pixels + (size_t)(y - first) * crop_row_bytes, row + column_offset, crop_row_bytes);
                if (request->rows_ready) request->rows_ready(request->rows_context, y - first + 1);
            }
        }
    } else {
        // Each pass adds pixels to rows already holding the earlier passes,
        // so the crop's rows are kept whole until the last pass is in.
        // A crop of the full width keeps its rows in the caller's buffer
        // itself; a narrower one needs its full rows until the last pass.
        if (row_bytes == crop_row_bytes) {
            kept_rows = request->pixels;
            memset(kept_rows, 0, crop_row_bytes * request->crop_height);
        } else if (row_bytes != 0 && request->crop_height > request->max_allocation / row_bytes) {
            status = CK_STATUS_LIMIT;
            png_error(png, "the interlaced crop's rows exceed the allocation limit");
        } else {
            kept_rows = calloc(request->crop_height, row_bytes);
        }
        if (kept_rows == NULL) {
            status = CK_STATUS_OUT_OF_MEMORY;
            png_error(png, "out of memory for the interlaced crop's rows");
        }
        for (int pass = 0; pass < passes; pass++) {
            uint32_t last = pass == passes - 1 ? end : height;
            for (uint32_t y = 0; y < last; y++) {
                uint8_t *target = (y >= first && y < end) ? kept_rows + (size_t)(y - first) * row_bytes : row;
                png_read_row(png, target, NULL);
            }
        }
    }
complete:
    if (source.stopped) {
        // libpng had handed over the last row when it was stopped: the
        // caller's row (non-interlaced) or the kept rows hold it.
        request->checksum = CK_CHECKSUM_EXTRA_DATA;
        if (passes == 1) {
            memcpy(request->pixels + (size_t)(request->crop_height - 1) * crop_row_bytes, row + column_offset,
                   crop_row_bytes);
            request->rows_decoded = request->height;
            if (request->rows_ready) request->rows_ready(request->rows_context, request->crop_height);
        }
    } else if (request->crop_y + request->crop_height == request->height) {
        if (request->checksum < 0) {
            free(row);
            if (kept_rows != request->pixels) free(kept_rows);
            png_destroy_read_struct(&png, &info, NULL);
            free(source.buffer);
            snprintf(request->message, sizeof request->message,
                     "the image data's Adler-32 checksum does not match (zlib: incorrect data check)");
            return CK_STATUS_CORRUPT;
        }
        request->checksum = CK_CHECKSUM_VERIFIED;
    }
    if (passes != 1) {
        request->rows_decoded = request->crop_y + request->crop_height;
        for (uint32_t y = 0; kept_rows != request->pixels && y < request->crop_height; y++) {
            memcpy(request->pixels + (size_t)y * crop_row_bytes, kept_rows + (size_t)y * row_bytes + column_offset,
                   crop_row_bytes);
        }
        if (request->rows_ready) request->rows_ready(request->rows_context, request->crop_height);
    }
    free(row);
    row = NULL;
    if (kept_rows != request->pixels) free(kept_rows);
    kept_rows = NULL;
    png_destroy_read_struct(&png, &info, NULL);
    free(source.buffer);
    return CK_STATUS_OK;
}
