// PNG row filtering: the five filters and the minimum-sum-of-absolute-
// differences choice, in plain C so that the compiler vectorises it (and so
// that debug builds stay usable: unspecialised Swift SIMD is slow there).
#include "CImagingShims.h"

static inline unsigned ck_cost(uint8_t v) {
    int s = (int8_t)v;
    return (unsigned)(s < 0 ? -s : s);
}

uint8_t ck_png_filter_row(const uint8_t *row, const uint8_t *prior, size_t count, size_t bpp, uint8_t *out,
                          uint8_t *scratch) {
    uint8_t *sub = scratch;
    uint8_t *up = scratch + count;
    uint8_t *average = scratch + 2 * count;
    uint8_t *paeth = scratch + 3 * count;
    unsigned long none_cost = 0, sub_cost = 0, up_cost = 0, average_cost = 0, paeth_cost = 0;
    size_t lead = bpp < count ? bpp : count;
    for (size_t i = 0; i < lead; i++) {
        // No left neighbour: a = c = 0, so Sub is None and Paeth is Up.
        uint8_t x = row[i], b = prior[i];
        sub[i] = x;
        up[i] = (uint8_t)(x - b);
        average[i] = (uint8_t)(x - (b >> 1));
        paeth[i] = (uint8_t)(x - b);
    }
    for (size_t i = lead; i < count; i++) {
        int x = row[i], a = row[i - bpp], b = prior[i], c = prior[i - bpp];
        int p = a + b - c;
        int pa = p - a < 0 ? a - p : p - a;
        int pb = p - b < 0 ? b - p : p - b;
        int pc = p - c < 0 ? c - p : p - c;
        int predictor = (pa <= pb && pa <= pc) ? a : (pb <= pc ? b : c);
        sub[i] = (uint8_t)(x - a);
        up[i] = (uint8_t)(x - b);
        average[i] = (uint8_t)(x - ((a + b) >> 1));
        paeth[i] = (uint8_t)(x - predictor);
    }
    for (size_t i = 0; i < count; i++) {
        none_cost += ck_cost(row[i]);
        sub_cost += ck_cost(sub[i]);
        up_cost += ck_cost(up[i]);
        average_cost += ck_cost(average[i]);
        paeth_cost += ck_cost(paeth[i]);
    }
    uint8_t best = 0;
    unsigned long best_cost = none_cost;
    const uint8_t *chosen = row;
    if (sub_cost < best_cost) { best = 1; best_cost = sub_cost; chosen = sub; }
    if (up_cost < best_cost) { best = 2; best_cost = up_cost; chosen = up; }
    if (average_cost < best_cost) { best = 3; best_cost = average_cost; chosen = average; }
    if (paeth_cost < best_cost) { best = 4; best_cost = paeth_cost; chosen = paeth; }
    for (size_t i = 0; i < count; i++) out[i] = chosen[i];
    return best;
}
