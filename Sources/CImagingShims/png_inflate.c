// A PNG crop decoded without libpng: the image data inflated by Intel's
// ISA-L (libisal.so.2, loaded at run time, about three times zlib's inflate
// speed) and unfiltered here. For non-interlaced images of 8 or 16 bits a
// sample only; the caller falls back to libpng for the rest, and when ISA-L
// is not installed.
#include "CImagingShims.h"
#include "loader_internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <emmintrin.h>
#endif

// The leading fields of ISA-L's struct inflate_state (igzip_lib.h), the only
// ones used; the same since ISA-L 2.0. The whole struct (87,368 bytes in
// 2.30) is allocated with room to spare, since its size may change.
typedef struct {
    uint8_t *next_out;
    uint32_t avail_out;
    uint32_t total_out;
    const uint8_t *next_in;
    uint64_t read_in;  // bits read ahead of the stream, the next one lowest
    uint32_t avail_in;
    int32_t read_in_length;  // how many bits of read_in are valid
} ck_isal_state_head;

enum { ck_isal_state_bytes = 1 << 20 };

typedef struct {
    void (*inflate_init)(void *state);
    int (*inflate)(void *state);
} ck_isal_table;

static ck_isal_table ck_isal;

static const char *const ck_isal_sonames[] = {"libisal.so.2", "libisal.2.dylib", "/opt/homebrew/lib/libisal.2.dylib",
                                              "/usr/local/lib/libisal.2.dylib"};

static const ck_symbol ck_isal_symbols[] = {
    {"isal_inflate_init", offsetof(ck_isal_table, inflate_init), 1},
    {"isal_inflate", offsetof(ck_isal_table, inflate), 1},
};

static ck_library ck_isal_library = {ck_isal_sonames, sizeof ck_isal_sonames / sizeof ck_isal_sonames[0],
                                     ck_isal_symbols, sizeof ck_isal_symbols / sizeof ck_isal_symbols[0],
                                     &ck_isal, sizeof ck_isal, 0};

int ck_isal_available(void) { return ck_library_load(&ck_isal_library); }

static int ck_channels_of(int color_type) {
    switch (color_type) {
    case 0: return 1;
    case 2: return 3;
    case 3: return 1;
    case 4: return 2;
    case 6: return 4;
    default: return 0;
    }
}

// The Paeth predictor of one byte, without branches: pa = |b - c|,
// pb = |a - c|, pc = |a + b - 2c|, the first of a, b, c whose distance is
// least (the PNG specification's order of ties).
static inline uint8_t ck_paeth(int a, int b, int c) {
    int pa = b - c, pb = a - c;
    int pc = pa + pb;
    pa = pa < 0 ? -pa : pa;
    pb = pb < 0 ? -pb : pb;
    pc = pc < 0 ? -pc : pc;
    int bc = pb <= pc ? b : c;
    return (uint8_t)((pa <= pb && pa <= pc) ? a : bc);
}

// Undoes Paeth from byte `bpp` on; the bytes of a pixel are independent
// chains, so a whole pixel is done per step (the common widths written out,
// so that each chain stays in a register).
#if defined(__x86_64__)
// One pixel of 3 to 8 bytes at `at` loaded into 16-bit lanes.
static inline __attribute__((always_inline)) __m128i ck_load_pixel(const uint8_t *at, size_t bpp) {
    uint64_t word = 0;
    memcpy(&word, at, bpp);
    return _mm_unpacklo_epi8(_mm_cvtsi64_si128((long long)word), _mm_setzero_si128());
}

// Paeth for pixels of 3 to 8 bytes with SSE2 (always there on x86-64): the
// bytes of one pixel at once, in 16-bit lanes, as libpng's SSE2 filters do
// for 3 and 4 (and here for 16-bit RGB and RGBA too). Inlined with a
// constant `bpp`, so each pixel's copy is one or two moves.
static inline __attribute__((always_inline)) void ck_unpaeth_sse2(uint8_t *row, const uint8_t *prior,
                                                                   size_t count, size_t bpp) {
    const __m128i zero = _mm_setzero_si128();
    __m128i a = ck_load_pixel(row, bpp);  // the first pixel is already done
    __m128i c = ck_load_pixel(prior, bpp);
    size_t i = bpp;
    for (; i + bpp <= count; i += bpp) {
        __m128i b = ck_load_pixel(prior + i, bpp);
        __m128i d = ck_load_pixel(row + i, bpp);
        __m128i pa = _mm_sub_epi16(b, c);
        __m128i pb = _mm_sub_epi16(a, c);
        __m128i pc = _mm_add_epi16(pa, pb);
        pa = _mm_max_epi16(pa, _mm_sub_epi16(zero, pa));
        pb = _mm_max_epi16(pb, _mm_sub_epi16(zero, pb));
        pc = _mm_max_epi16(pc, _mm_sub_epi16(zero, pc));
        __m128i smallest = _mm_min_epi16(pc, _mm_min_epi16(pa, pb));
        __m128i use_a = _mm_cmpeq_epi16(smallest, pa);
        __m128i use_b = _mm_cmpeq_epi16(smallest, pb);
        __m128i b_or_c = _mm_or_si128(_mm_and_si128(use_b, b), _mm_andnot_si128(use_b, c));
        __m128i nearest = _mm_or_si128(_mm_and_si128(use_a, a), _mm_andnot_si128(use_a, b_or_c));
        d = _mm_and_si128(_mm_add_epi16(d, nearest), _mm_set1_epi16(0xFF));
        uint64_t word = (uint64_t)_mm_cvtsi128_si64(_mm_packus_epi16(d, d));
        memcpy(row + i, &word, bpp);
        a = d;
        c = b;
    }
    for (; i < count; i++) row[i] = (uint8_t)(row[i] + ck_paeth(row[i - bpp], prior[i], prior[i - bpp]));
}
#endif

static void ck_unpaeth(uint8_t *row, const uint8_t *prior, size_t count, size_t bpp) {
#if defined(__x86_64__)
    if (bpp == 4 && count >= 8) {
        ck_unpaeth_sse2(row, prior, count, 4);
        return;
    }
    if (bpp == 3 && count >= 6) {
        ck_unpaeth_sse2(row, prior, count, 3);
        return;
    }
    if (bpp == 6 && count >= 12) {
        ck_unpaeth_sse2(row, prior, count, 6);
        return;
    }
    if (bpp == 8 && count >= 16) {
        ck_unpaeth_sse2(row, prior, count, 8);
        return;
    }
#endif
    size_t i = bpp;
    if (bpp == 4) {
        for (; i + 4 <= count; i += 4) {
            row[i] = (uint8_t)(row[i] + ck_paeth(row[i - 4], prior[i], prior[i - 4]));
            row[i + 1] = (uint8_t)(row[i + 1] + ck_paeth(row[i - 3], prior[i + 1], prior[i - 3]));
            row[i + 2] = (uint8_t)(row[i + 2] + ck_paeth(row[i - 2], prior[i + 2], prior[i - 2]));
            row[i + 3] = (uint8_t)(row[i + 3] + ck_paeth(row[i - 1], prior[i + 3], prior[i - 1]));
        }
    } else if (bpp == 3) {
        for (; i + 3 <= count; i += 3) {
            row[i] = (uint8_t)(row[i] + ck_paeth(row[i - 3], prior[i], prior[i - 3]));
            row[i + 1] = (uint8_t)(row[i + 1] + ck_paeth(row[i - 2], prior[i + 1], prior[i - 2]));
            row[i + 2] = (uint8_t)(row[i + 2] + ck_paeth(row[i - 1], prior[i + 2], prior[i - 1]));
        }
    }
    for (; i < count; i++) row[i] = (uint8_t)(row[i] + ck_paeth(row[i - bpp], prior[i], prior[i - bpp]));
}

// Undoes the PNG filter `type` of `row` (`count` bytes) in place, given the
// row above (`prior`, already unfiltered) and the bytes a pixel (`bpp`).
static int ck_unfilter(uint8_t type, uint8_t *row, const uint8_t *prior, size_t count, size_t bpp) {
    switch (type) {
    case 0: return 1;
    case 1:
        for (size_t i = bpp; i < count; i++) row[i] = (uint8_t)(row[i] + row[i - bpp]);
        return 1;
    case 2:
        for (size_t i = 0; i < count; i++) row[i] = (uint8_t)(row[i] + prior[i]);
        return 1;
    case 3:
        for (size_t i = 0; i < bpp && i < count; i++) row[i] = (uint8_t)(row[i] + (prior[i] >> 1));
        for (size_t i = bpp; i < count; i++) row[i] = (uint8_t)(row[i] + ((row[i - bpp] + prior[i]) >> 1));
        return 1;
    case 4:
        for (size_t i = 0; i < bpp && i < count; i++) row[i] = (uint8_t)(row[i] + prior[i]);
        ck_unpaeth(row, prior, count, bpp);
        return 1;
    default: return 0;
    }
}

// The image data (the IDAT spans, in order) fed to ISA-L piece by piece,
// its 2-byte zlib header checked and skipped.
typedef struct {
    const ck_input *input;
    const ck_data_span *spans;
    size_t span_count;
    size_t span;         // the span being read
    uint64_t span_done;  // bytes of it read
    size_t header_left;
    uint8_t header[2];
    uint8_t *buffer;
} ck_idat_reader;

enum { ck_idat_buffer_bytes = 1 << 18 };

// Gives ISA-L the next piece once it has used the last: 1 when it did, 0 at
// the end of the data, -1 on an error (`message` says which).
static int ck_idat_refill(ck_idat_reader *reader, ck_isal_state_head *head, char *message, size_t size) {
    while (head->avail_in == 0) {
        while (reader->span < reader->span_count && reader->span_done == reader->spans[reader->span].length) {
            reader->span += 1;
            reader->span_done = 0;
        }
        if (reader->span == reader->span_count) return 0;
        const ck_data_span *span = &reader->spans[reader->span];
        uint64_t want = span->length - reader->span_done;
        if (want > ck_idat_buffer_bytes) want = ck_idat_buffer_bytes;
        long got = ck_input_read(reader->input, span->offset + reader->span_done, reader->buffer, (size_t)want);
        if (got <= 0) {
            snprintf(message, size, "cannot read the image data");
            return -1;
        }
        reader->span_done += (uint64_t)got;
        size_t skip = 0;
        while (reader->header_left > 0 && skip < (size_t)got)
            reader->header[2 - reader->header_left--] = reader->buffer[skip++];
        if (reader->header_left == 0 && skip > 0) {
            // CM 8 (deflate), a window of at most 32 KiB, a valid check, no
            // preset dictionary: what PNG allows.
            const uint8_t *h = reader->header;
            if ((h[0] & 0x0F) != 8 || (h[0] >> 4) > 7 || ((h[0] << 8) | h[1]) % 31 != 0 || (h[1] & 0x20)) {
                snprintf(message, size, "the image data has an invalid zlib header");
                return -1;
            }
        }
        head->next_in = reader->buffer + skip;
        head->avail_in = (uint32_t)((size_t)got - skip);
    }
    return 1;
}

// The image data left unread: what ISA-L holds and the rest of the spans.
static uint64_t ck_idat_left(const ck_idat_reader *reader, const ck_isal_state_head *head) {
    uint64_t left = head->avail_in;
    for (size_t i = reader->span; i < reader->span_count; i++)
        left += reader->spans[i].length - (i == reader->span ? reader->span_done : 0);
    return left;
}

// After the image's last row: whether the stream ends there (its Adler-32
// checked against `adler`, the sum of every byte inflated), or goes on. What
// follows the last row is never inflated beyond one small buffer.
static int ck_idat_finish(ck_idat_reader *reader, void *state, uint32_t adler, ck_png_read_request *request) {
    ck_isal_state_head *head = (ck_isal_state_head *)state;
    uint8_t scratch[64];
    request->unread_bytes = 0;
    for (;;) {
        int more = ck_idat_refill(reader, head, request->message, sizeof request->message);
        if (more < 0) return CK_STATUS_CORRUPT;
        head->next_out = scratch;
        head->avail_out = sizeof scratch;
        uint32_t before_in = head->avail_in;
        int result = ck_isal.inflate(state);
        if (result < 0) {
            snprintf(request->message, sizeof request->message,
                     "the image data is not valid DEFLATE after its last row (ISA-L %d)", result);
            return CK_STATUS_CORRUPT;
        }
        if (head->avail_out < sizeof scratch) {
            // More pixels than the image has: stop here.
            request->checksum = CK_CHECKSUM_EXTRA_DATA;
            request->unread_bytes = ck_idat_left(reader, head);
            return CK_STATUS_OK;
        }
        // The stream has ended when ISA-L takes nothing more (it hands back
        // the bytes it read ahead of the final block's end).
        if (head->avail_in == before_in && (head->avail_in > 0 || more == 0)) break;
    }
    // ISA-L reads ahead whole words: the bytes after the final block's end
    // (past its padding bits) may be in read_in rather than next_in.
    uint8_t stored[4];
    size_t have = 0;
    int32_t bits = head->read_in_length;
    if (bits < 0 || bits > 64) bits = 0;
    uint64_t ahead = bits == 64 ? head->read_in : head->read_in & ((UINT64_C(1) << bits) - 1);
    ahead >>= bits % 8;
    for (int32_t byte = 0; byte < bits / 8; byte++, ahead >>= 8) {
        if (have < 4) stored[have++] = (uint8_t)ahead;
        else request->unread_bytes += 1;
    }
    while (have < 4) {
        if (head->avail_in == 0 && ck_idat_refill(reader, head, request->message, sizeof request->message) <= 0) {
            if (request->message[0] != '\0') return CK_STATUS_CORRUPT;
            snprintf(request->message, sizeof request->message,
                     "the image data ends before its Adler-32 checksum (truncated)");
            return CK_STATUS_CORRUPT;
        }
        stored[have++] = *head->next_in++;
        head->avail_in -= 1;
    }
    uint32_t expected = (uint32_t)stored[0] << 24 | (uint32_t)stored[1] << 16 | (uint32_t)stored[2] << 8 | stored[3];
    if (expected != adler) {
        snprintf(request->message, sizeof request->message,
                 "the image data's Adler-32 checksum does not match (stored %08x, computed %08x)", expected, adler);
        return CK_STATUS_CORRUPT;
    }
    request->checksum = CK_CHECKSUM_VERIFIED;
    request->unread_bytes += ck_idat_left(reader, head);
    return CK_STATUS_OK;
}

int ck_png_read_crop_isal(const ck_input *input, const ck_data_span *spans, size_t span_count,
                          ck_png_read_request *request) {
    request->warnings = 0;
    request->rows_decoded = 0;
    request->checksum = CK_CHECKSUM_NOT_REACHED;
    request->unread_bytes = 0;
    request->message[0] = '\0';
    if (!ck_isal_available()) {
        snprintf(request->message, sizeof request->message, "ISA-L (libisal.so.2) is not installed");
        return CK_STATUS_CANNOT_OPEN;
    }
    int channels = ck_channels_of(request->color_type);
    if (channels == 0 || request->interlaced || (request->bit_depth != 8 && request->bit_depth != 16)) {
        snprintf(request->message, sizeof request->message, "only non-interlaced 8- and 16-bit PNGs");
        return CK_STATUS_MISMATCH;
    }
    size_t bpp = (size_t)channels * (size_t)(request->bit_depth / 8);
    size_t row_bytes = (size_t)request->width * bpp;
    size_t crop_row_bytes = (size_t)request->crop_width * bpp;
    if ((uint64_t)request->crop_x + request->crop_width > request->width ||
        (uint64_t)request->crop_y + request->crop_height > request->height || request->crop_width == 0 ||
        request->crop_height == 0 || request->pixels == NULL ||
        request->pixels_size != crop_row_bytes * request->crop_height) {
        snprintf(request->message, sizeof request->message, "the crop or its buffer does not fit the image");
        return CK_STATUS_MISMATCH;
    }
    ck_idat_reader reader = {input, spans, span_count, 0, 0, 2, {0, 0}, malloc(ck_idat_buffer_bytes)};
    uint8_t *rows = calloc(2, row_bytes + 1);
    uint8_t *zeros = calloc(1, row_bytes + 1);
    void *state = calloc(1, ck_isal_state_bytes);
    int status = CK_STATUS_CORRUPT;
    if (reader.buffer == NULL || rows == NULL || zeros == NULL || state == NULL) {
        status = CK_STATUS_OUT_OF_MEMORY;
        snprintf(request->message, sizeof request->message, "out of memory for the image data reader");
        goto done;
    }
    ck_isal.inflate_init(state);
    ck_isal_state_head *head = (ck_isal_state_head *)state;
    uint8_t *current = rows, *prior = zeros;
    uint32_t end = request->crop_y + request->crop_height;
    // The checksum covers every byte inflated: summed only when the crop
    // reaches the last row, the one case where the stream's end is read.
    int reaches_end = end == request->height;
    uint32_t adler = 1;
    size_t column = (size_t)request->crop_x * bpp;
    for (uint32_t y = 0; y < end; y++) {
        head->next_out = current;
        head->avail_out = (uint32_t)(row_bytes + 1);
        while (head->avail_out > 0) {
            int more = ck_idat_refill(&reader, head, request->message, sizeof request->message);
            if (more < 0) goto done;
            // With no input left ISA-L may still hold bits it read: it is
            // asked once more, and only no progress means the data ended.
            uint32_t before_out = head->avail_out, before_in = head->avail_in;
            int result = ck_isal.inflate(state);
            if (result < 0) {
                snprintf(request->message, sizeof request->message, "the image data is not valid DEFLATE (ISA-L %d)",
                         result);
                goto done;
            }
            if (head->avail_out == before_out && head->avail_in == before_in) {
                snprintf(request->message, sizeof request->message,
                         "the image data ends before row %u of %u (truncated)", y + 1, request->height);
                goto done;
            }
        }
        if (reaches_end) adler = ck_adler32_update(adler, current, row_bytes + 1);
        if (!ck_unfilter(current[0], current + 1, prior + 1, row_bytes, bpp)) {
            snprintf(request->message, sizeof request->message, "row %u has an invalid filter type %u", y + 1,
                     current[0]);
            goto done;
        }
        request->rows_decoded = y + 1;
        if (y >= request->crop_y) {
            memcpy(request->pixels + (size_t)(y - request->crop_y) * crop_row_bytes, current + 1 + column,
                   crop_row_bytes);
            // The last row is final only once the stream's end is checked.
            if (request->rows_ready && !(reaches_end && y + 1 == end))
                request->rows_ready(request->rows_context, y - request->crop_y + 1);
        }
        prior = current;
        current = current == rows ? rows + row_bytes + 1 : rows;
    }
    if (reaches_end) {
        status = ck_idat_finish(&reader, state, adler, request);
        if (status != CK_STATUS_OK) goto done;
        if (request->rows_ready) request->rows_ready(request->rows_context, request->crop_height);
    }
    status = CK_STATUS_OK;
done:
    free(reader.buffer);
    free(rows);
    free(zeros);
    free(state);
    return status;
}
