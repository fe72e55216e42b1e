// A PNG crop decoded without libpng: the image data inflated by Intel's
// ISA-L (libisal.so.2, loaded at run time, about three times zlib's inflate
// speed) and unfiltered here. For non-interlaced images of 8 or 16 bits a
// sample only; the caller falls back to libpng for the rest, and when ISA-L
// is not installed.
#include "CImagingShims.h"

#include <dlfcn.h>
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
    uint64_t read_in;
    uint32_t avail_in;
} ck_isal_state_head;

enum { ck_isal_state_bytes = 1 << 20 };

static struct {
    void (*inflate_init)(void *state);
    int (*inflate)(void *state);
} ck_isal;

static pthread_once_t ck_isal_once = PTHREAD_ONCE_INIT;

static void ck_isal_load(void) {
    const char *names[] = {"libisal.so.2", "libisal.2.dylib", "/opt/homebrew/lib/libisal.2.dylib",
                           "/usr/local/lib/libisal.2.dylib"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        void *handle = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (handle == NULL) continue;
        ck_isal.inflate_init = (void (*)(void *))dlsym(handle, "isal_inflate_init");
        ck_isal.inflate = (int (*)(void *))dlsym(handle, "isal_inflate");
        if (ck_isal.inflate_init && ck_isal.inflate) return;
        // Both or neither: no pointer is left into a library that is closed.
        memset(&ck_isal, 0, sizeof ck_isal);
        dlclose(handle);
    }
}

int ck_isal_available(void) {
    pthread_once(&ck_isal_once, ck_isal_load);
    return ck_isal.inflate != NULL;
}

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
// One pixel of 3 or 4 bytes at `at` loaded into the low 16-bit lanes.
static inline __attribute__((always_inline)) __m128i ck_load_pixel(const uint8_t *at, size_t bpp) {
    uint32_t word = 0;
    memcpy(&word, at, bpp);
    return _mm_unpacklo_epi8(_mm_cvtsi32_si128((int)word), _mm_setzero_si128());
}

// Paeth for pixels of 3 or 4 bytes with SSE2 (always there on x86-64): the
// bytes of one pixel at once, in 16-bit lanes, as libpng's SSE2 filters do.
// Inlined with a constant `bpp`, so each 3- or 4-byte copy is one move.
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
        uint32_t word = (uint32_t)_mm_cvtsi128_si32(_mm_packus_epi16(d, d));
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

int ck_png_read_crop_isal(const ck_input *input, const ck_data_span *spans, size_t span_count,
                          ck_png_read_request *request) {
    request->warnings = 0;
    request->rows_decoded = 0;
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
    enum { input_bytes = 1 << 18 };
    uint8_t *in = malloc(input_bytes);
    uint8_t *rows = calloc(2, row_bytes + 1);
    uint8_t *zeros = calloc(1, row_bytes + 1);
    void *state = calloc(1, ck_isal_state_bytes);
    int status = CK_STATUS_CORRUPT;
    if (in == NULL || rows == NULL || zeros == NULL || state == NULL) {
        status = CK_STATUS_OUT_OF_MEMORY;
        snprintf(request->message, sizeof request->message, "out of memory for the image data reader");
        goto done;
    }
    ck_isal.inflate_init(state);
    ck_isal_state_head *head = (ck_isal_state_head *)state;
    size_t span = 0;
    uint64_t span_done = 0;
    size_t header_left = 2;  // the zlib header (CMF, FLG), checked then skipped
    uint8_t header[2];
    uint8_t *current = rows, *prior = zeros;
    uint32_t end = request->crop_y + request->crop_height;
    size_t column = (size_t)request->crop_x * bpp;
    for (uint32_t y = 0; y < end; y++) {
        head->next_out = current;
        head->avail_out = (uint32_t)(row_bytes + 1);
        while (head->avail_out > 0) {
            if (head->avail_in == 0) {
                while (span < span_count && span_done == spans[span].length) {
                    span += 1;
                    span_done = 0;
                }
            }
            if (head->avail_in == 0 && span < span_count) {
                uint64_t want = spans[span].length - span_done;
                if (want > input_bytes) want = input_bytes;
                long got = ck_input_read(input, spans[span].offset + span_done, in, (size_t)want);
                if (got <= 0) {
                    snprintf(request->message, sizeof request->message, "cannot read the image data");
                    goto done;
                }
                span_done += (uint64_t)got;
                size_t skip = 0;
                while (header_left > 0 && skip < (size_t)got) header[2 - header_left--] = in[skip++];
                if (header_left == 0 && skip > 0) {
                    // CM 8 (deflate), a window of at most 32 KiB, a valid
                    // check, no preset dictionary: what PNG allows.
                    if ((header[0] & 0x0F) != 8 || (header[0] >> 4) > 7 || ((header[0] << 8) | header[1]) % 31 != 0 ||
                        (header[1] & 0x20)) {
                        snprintf(request->message, sizeof request->message,
                                 "the image data has an invalid zlib header");
                        goto done;
                    }
                }
                head->next_in = in + skip;
                head->avail_in = (uint32_t)((size_t)got - skip);
                if (head->avail_in == 0) continue;
            }
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
        if (!ck_unfilter(current[0], current + 1, prior + 1, row_bytes, bpp)) {
            snprintf(request->message, sizeof request->message, "row %u has an invalid filter type %u", y + 1,
                     current[0]);
            goto done;
        }
        request->rows_decoded = y + 1;
        if (y >= request->crop_y) {
            memcpy(request->pixels + (size_t)(y - request->crop_y) * crop_row_bytes, current + 1 + column,
                   crop_row_bytes);
            if (request->rows_ready) request->rows_ready(request->rows_context, y - request->crop_y + 1);
        }
        prior = current;
        current = current == rows ? rows + row_bytes + 1 : rows;
    }
    status = CK_STATUS_OK;
done:
    free(in);
    free(rows);
    free(zeros);
    free(state);
    return status;
}
