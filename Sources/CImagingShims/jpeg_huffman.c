// CropKit's Huffman encoder for the lossless crop's output: one sequential
// scan with optimized tables, written byte for byte as libjpeg-turbo's
// jpeg_write_coefficients writes it, but on two threads. The symbol
// statistics are gathered in two bands of MCU rows side by side, the
// tables built as libjpeg-turbo builds them (Rec. ITU-T T.81 Annex K.2),
// and the scan encoded in two bands side by side: with restart intervals
// the second band starts at an interval (byte-aligned after its marker),
// without them it is encoded unstuffed and joined to the first by shifting
// its bits and stuffing the bytes again.
#include "jpeg_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/// The position of each zigzag index in a block stored in natural order.
static const uint8_t ck_zigzag[64] = {
    0,  1,  8,  16, 9,  2,  3,  10, 17, 24, 32, 25, 18, 11, 4,  5,  12, 19, 26, 33, 40, 48,
    41, 34, 27, 20, 13, 6,  7,  14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23,
    30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63};

/// The bits of each AC coefficient after the first that are nonzero, in
/// zigzag order (bit k for zigzag index k), and the block in zigzag order.
static inline uint64_t ck_nonzero_ac(const JCOEF *block, int16_t zigzag[64]) {
    for (int k = 0; k < 64; k++) zigzag[k] = block[ck_zigzag[k]];
#if defined(__SSE2__)
    uint64_t zero = 0;
    __m128i nothing = _mm_setzero_si128();
    for (int part = 0; part < 4; part++) {
        __m128i low = _mm_cmpeq_epi16(_mm_loadu_si128((const __m128i *)(zigzag + 16 * part)), nothing);
        __m128i high = _mm_cmpeq_epi16(_mm_loadu_si128((const __m128i *)(zigzag + 16 * part + 8)), nothing);
        zero |= (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_packs_epi16(low, high)) << (16 * part);
    }
    return ~zero & ~(uint64_t)1;
#else
    uint64_t nonzero = 0;
    for (int k = 1; k < 64; k++) nonzero |= (uint64_t)(zigzag[k] != 0) << k;
    return nonzero;
#endif
}

/// The bits a magnitude takes (JPEG's SSSS category).
static inline int ck_magnitude_bits(int value) {
    unsigned magnitude = (unsigned)(value < 0 ? -value : value);
    return magnitude == 0 ? 0 : 32 - __builtin_clz(magnitude);
}

// MARK: - The output's layout

/// The output scan as jctrans.c's compress_output walks it: MCUs in rows,
/// each the blocks of every component in turn, with dummy blocks (a DC
/// equal to the block before, no AC) past a component's right or bottom
/// edge.
typedef struct {
    int components;
    /// Blocks across and down one MCU, per component (1 and 1 when the
    /// scan holds one component).
    int mcu_width[4], mcu_height[4];
    JDIMENSION width_blocks[4], height_blocks[4];
    /// Huffman table slots (0-3) of each component.
    int dc_table[4], ac_table[4];
    JBLOCKROW *rows[4];
    long mcus_per_row, mcu_rows;
    long restart;
} ck_layout;

/// The DC prediction of component `ci` before MCU `mcu`: 0 at the scan's
/// start and at a restart, else the DC of its last real block in the MCU
/// before (a dummy block repeats the DC before it).
static int ck_dc_before(const ck_layout *layout, long mcu, int ci) {
    if (mcu == 0 || (layout->restart > 0 && mcu % layout->restart == 0)) return 0;
    long before = mcu - 1;
    long row = before / layout->mcus_per_row, column = before % layout->mcus_per_row;
    for (int y = layout->mcu_height[ci] - 1; y >= 0; y--) {
        long block_row = row * layout->mcu_height[ci] + y;
        if (block_row >= (long)layout->height_blocks[ci]) continue;
        for (int x = layout->mcu_width[ci] - 1; x >= 0; x--) {
            long block_column = column * layout->mcu_width[ci] + x;
            if (block_column < (long)layout->width_blocks[ci]) return layout->rows[ci][block_row][block_column][0];
        }
    }
    return 0;  // not reached: an MCU's first block is always real
}

// MARK: - Statistics

typedef struct {
    const ck_layout *layout;
    long first_row, end_row;  // MCU rows
    long dc_counts[4][257], ac_counts[4][257];
    /// Each MCU row's cost, for splitting the encoding evenly (blocks plus
    /// nonzero coefficients), written for this band's rows.
    long *row_cost;
    int ok;
} ck_gather_band;

static void *ck_gather(void *argument) {
    ck_gather_band *band = (ck_gather_band *)argument;
    const ck_layout *layout = band->layout;
    band->ok = 0;
    int last_dc[4];
    long first_mcu = band->first_row * layout->mcus_per_row;
    for (int ci = 0; ci < layout->components; ci++) last_dc[ci] = ck_dc_before(layout, first_mcu, ci);
    int16_t zigzag[64];
    for (long row = band->first_row; row < band->end_row; row++) {
        long cost = 0;
        for (long column = 0; column < layout->mcus_per_row; column++) {
            long mcu = row * layout->mcus_per_row + column;
            if (layout->restart > 0 && mcu > 0 && mcu % layout->restart == 0) {
                last_dc[0] = last_dc[1] = last_dc[2] = last_dc[3] = 0;
            }
            for (int ci = 0; ci < layout->components; ci++) {
                long *dc_counts = band->dc_counts[layout->dc_table[ci]];
                long *ac_counts = band->ac_counts[layout->ac_table[ci]];
                for (int y = 0; y < layout->mcu_height[ci]; y++) {
                    long block_row = row * layout->mcu_height[ci] + y;
                    int row_real = block_row < (long)layout->height_blocks[ci];
                    for (int x = 0; x < layout->mcu_width[ci]; x++) {
                        long block_column = column * layout->mcu_width[ci] + x;
                        cost += 1;
                        if (!row_real || block_column >= (long)layout->width_blocks[ci]) {
                            dc_counts[0] += 1;  // a dummy block: no DC change, no AC
                            ac_counts[0] += 1;
                            continue;
                        }
                        const JCOEF *block = layout->rows[ci][block_row][block_column];
                        int bits = ck_magnitude_bits(block[0] - last_dc[ci]);
                        // As libjpeg-turbo's htest_one_block refuses them.
                        if (bits > 11) return NULL;
                        dc_counts[bits] += 1;
                        last_dc[ci] = block[0];
                        uint64_t nonzero = ck_nonzero_ac(block, zigzag);
                        int previous = 0;
                        while (nonzero != 0) {
                            int k = __builtin_ctzll(nonzero);
                            nonzero &= nonzero - 1;
                            int run = k - previous - 1;
                            while (run > 15) {
                                ac_counts[0xF0] += 1;
                                run -= 16;
                            }
                            int size = ck_magnitude_bits(zigzag[k]);
                            if (size > 10) return NULL;
                            ac_counts[(run << 4) + size] += 1;
                            previous = k;
                            cost += 1;
                        }
                        if (previous < 63) ac_counts[0] += 1;
                    }
                }
            }
        }
        band->row_cost[row] = cost;
    }
    band->ok = 1;
    return NULL;
}

// MARK: - Tables

/// An optimal Huffman table for `frequencies` (257 counts, the last for a
/// pseudo-symbol), exactly as libjpeg-turbo's jpeg_gen_optimal_table makes
/// it: Huffman's algorithm with ties to the larger symbol, then lengths
/// over 16 folded as Annex K.2 says. Returns 0 when a length would pass 32.
static int ck_optimal_table(const long counts[257], uint8_t bits[17], uint8_t values[256], int *value_count) {
    long frequency[257];
    memcpy(frequency, counts, sizeof frequency);
    uint8_t length_count[33];
    int code_size[257], others[257];
    memset(length_count, 0, sizeof length_count);
    memset(code_size, 0, sizeof code_size);
    for (int i = 0; i < 257; i++) others[i] = -1;
    frequency[256] = 1;
    for (;;) {
        int c1 = -1, c2 = -1;
        long v = 1000000000L;
        for (int i = 0; i <= 256; i++) {
            if (frequency[i] && frequency[i] <= v) {
                v = frequency[i];
                c1 = i;
            }
        }
        v = 1000000000L;
        for (int i = 0; i <= 256; i++) {
            if (frequency[i] && frequency[i] <= v && i != c1) {
                v = frequency[i];
                c2 = i;
            }
        }
        if (c2 < 0) break;
        frequency[c1] += frequency[c2];
        frequency[c2] = 0;
        code_size[c1]++;
        while (others[c1] >= 0) {
            c1 = others[c1];
            code_size[c1]++;
        }
        others[c1] = c2;
        code_size[c2]++;
        while (others[c2] >= 0) {
            c2 = others[c2];
            code_size[c2]++;
        }
    }
    for (int i = 0; i <= 256; i++) {
        if (code_size[i] == 0) continue;
        if (code_size[i] > 32) return 0;
        length_count[code_size[i]]++;
    }
    int i;
    for (i = 32; i > 16; i--) {
        while (length_count[i] > 0) {
            int j = i - 2;
            while (length_count[j] == 0) j--;
            length_count[i] -= 2;
            length_count[i - 1]++;
            length_count[j + 1] += 2;
            length_count[j]--;
        }
    }
    while (length_count[i] == 0) i--;
    length_count[i]--;
    memcpy(bits, length_count, 17);
    int p = 0;
    for (int length = 1; length <= 32; length++) {
        for (int symbol = 0; symbol <= 255; symbol++) {
            if (code_size[symbol] == length) values[p++] = (uint8_t)symbol;
        }
    }
    *value_count = p;
    return 1;
}

/// A table made ready for encoding: each symbol's code and its length.
typedef struct {
    uint32_t code[256];
    uint8_t size[256];
    /// As written in DHT.
    uint8_t bits[17];
    uint8_t values[256];
    int value_count;
} ck_code_table;

/// The canonical codes of `table`'s bits and values (Annex C).
static void ck_code_table_derive(ck_code_table *table) {
    memset(table->code, 0, sizeof table->code);
    memset(table->size, 0, sizeof table->size);
    uint32_t code = 0;
    int p = 0;
    for (int length = 1; length <= 16; length++) {
        for (int i = 0; i < table->bits[length]; i++, p++) {
            table->code[table->values[p]] = code++;
            table->size[table->values[p]] = (uint8_t)length;
        }
        code <<= 1;
    }
}

// MARK: - Writing bits

/// Bytes of entropy-coded data: stuffed (FF 00) for the file, or not, for a
/// band to be shifted into place later. Full buffers go to `write` when it
/// is set; otherwise the buffer grows, up to `limit` bytes.
typedef struct {
    uint8_t *data;
    size_t length, capacity, limit;
    uint64_t accumulator;
    /// Bits waiting in the accumulator's low end: fewer than 32 between
    /// calls.
    int bits;
    int stuff;
    ck_write_fn write;
    void *context;
    /// A write failed; or the buffer would pass its limit.
    int failed, over;
} ck_bit_writer;

enum { ck_writer_chunk = 1 << 16, ck_mcu_room = 10 * 64 * 8 + 64 };

/// Room for one more MCU (at most 10 blocks of 64 codes of 27 bits, every
/// byte stuffed). Returns 0 when there is none.
static int ck_writer_room(ck_bit_writer *writer, size_t need) {
    if (writer->capacity - writer->length >= need) return 1;
    if (writer->write != NULL) {
        if (writer->length > 0 && writer->write(writer->context, writer->data, writer->length) != 0) {
            writer->failed = 1;
            return 0;
        }
        writer->length = 0;
        return writer->capacity >= need;
    }
    size_t capacity = writer->capacity * 2 > writer->length + need ? writer->capacity * 2 : writer->length + need;
    if (capacity > writer->limit) {
        writer->over = 1;
        return 0;
    }
    uint8_t *grown = (uint8_t *)realloc(writer->data, capacity);
    if (grown == NULL) {
        writer->over = 1;
        return 0;
    }
    writer->data = grown;
    writer->capacity = capacity;
    return 1;
}

static inline void ck_put_byte(ck_bit_writer *writer, uint8_t byte) {
    writer->data[writer->length++] = byte;
    if (byte == 0xFF && writer->stuff) writer->data[writer->length++] = 0;
}

/// Appends the low `size` bits of `value` (size at most 32; room made).
static inline void ck_put(ck_bit_writer *writer, uint32_t value, int size) {
    writer->accumulator = (writer->accumulator << size) | value;
    writer->bits += size;
    if (writer->bits < 32) return;
    writer->bits -= 32;
    uint32_t word = (uint32_t)(writer->accumulator >> writer->bits);
    uint32_t inverse = ~word;
    // No byte is FF (none of ~word's bytes is zero): all four at once.
    if (!writer->stuff || !((inverse - 0x01010101u) & ~inverse & 0x80808080u)) {
        uint8_t *at = writer->data + writer->length;
        at[0] = (uint8_t)(word >> 24);
        at[1] = (uint8_t)(word >> 16);
        at[2] = (uint8_t)(word >> 8);
        at[3] = (uint8_t)word;
        writer->length += 4;
        return;
    }
    ck_put_byte(writer, (uint8_t)(word >> 24));
    ck_put_byte(writer, (uint8_t)(word >> 16));
    ck_put_byte(writer, (uint8_t)(word >> 8));
    ck_put_byte(writer, (uint8_t)word);
}

/// Writes the whole bytes waiting; `pad` fills the last partial byte with
/// ones (the end of the scan, or before a restart marker) as libjpeg-turbo's
/// flush_bits does, else it stays in the accumulator.
static void ck_flush(ck_bit_writer *writer, int pad) {
    while (writer->bits >= 8) {
        writer->bits -= 8;
        ck_put_byte(writer, (uint8_t)(writer->accumulator >> writer->bits));
    }
    if (pad && writer->bits > 0) {
        uint8_t byte = (uint8_t)((writer->accumulator << (8 - writer->bits)) | (0xFFu >> writer->bits));
        writer->bits = 0;
        ck_put_byte(writer, byte);
    }
}

// MARK: - Encoding

static inline void ck_encode_block(ck_bit_writer *writer, const JCOEF *block, int *last_dc, const ck_code_table *dc,
                                   const ck_code_table *ac) {
    int diff = block[0] - *last_dc;
    *last_dc = block[0];
    int size = ck_magnitude_bits(diff);
    uint32_t extra = (uint32_t)(diff < 0 ? diff - 1 : diff) & ((1u << size) - 1);
    ck_put(writer, (dc->code[size] << size) | extra, dc->size[size] + size);
    int16_t zigzag[64];
    uint64_t nonzero = ck_nonzero_ac(block, zigzag);
    int previous = 0;
    while (nonzero != 0) {
        int k = __builtin_ctzll(nonzero);
        nonzero &= nonzero - 1;
        int run = k - previous - 1;
        while (run > 15) {
            ck_put(writer, ac->code[0xF0], ac->size[0xF0]);
            run -= 16;
        }
        int value = zigzag[k];
        size = ck_magnitude_bits(value);
        extra = (uint32_t)(value < 0 ? value - 1 : value) & ((1u << size) - 1);
        int symbol = (run << 4) + size;
        ck_put(writer, (ac->code[symbol] << size) | extra, ac->size[symbol] + size);
        previous = k;
    }
    if (previous < 63) ck_put(writer, ac->code[0], ac->size[0]);
}

typedef struct {
    const ck_layout *layout;
    const ck_code_table *tables;  // 4 DC, then 4 AC
    long first_mcu, end_mcu;
    ck_bit_writer writer;
} ck_encode_band;

/// Encodes the band's MCUs into its writer: a restart marker before each
/// MCU that starts an interval (but the scan's first). Returns 0 when the
/// writer failed or ran out of room.
static int ck_encode_mcus(ck_encode_band *band) {
    const ck_layout *layout = band->layout;
    ck_bit_writer *writer = &band->writer;
    int last_dc[4];
    for (int ci = 0; ci < layout->components; ci++) last_dc[ci] = ck_dc_before(layout, band->first_mcu, ci);
    for (long mcu = band->first_mcu; mcu < band->end_mcu; mcu++) {
        if (!ck_writer_room(writer, ck_mcu_room)) return 0;
        if (layout->restart > 0 && mcu > 0 && mcu % layout->restart == 0) {
            ck_flush(writer, 1);
            writer->data[writer->length++] = 0xFF;
            writer->data[writer->length++] = (uint8_t)(0xD0 + ((mcu / layout->restart - 1) & 7));
            last_dc[0] = last_dc[1] = last_dc[2] = last_dc[3] = 0;
        }
        long row = mcu / layout->mcus_per_row, column = mcu % layout->mcus_per_row;
        for (int ci = 0; ci < layout->components; ci++) {
            const ck_code_table *dc = &band->tables[layout->dc_table[ci]];
            const ck_code_table *ac = &band->tables[4 + layout->ac_table[ci]];
            for (int y = 0; y < layout->mcu_height[ci]; y++) {
                long block_row = row * layout->mcu_height[ci] + y;
                int row_real = block_row < (long)layout->height_blocks[ci];
                for (int x = 0; x < layout->mcu_width[ci]; x++) {
                    long block_column = column * layout->mcu_width[ci] + x;
                    if (!row_real || block_column >= (long)layout->width_blocks[ci]) {
                        ck_put(writer, dc->code[0], dc->size[0]);
                        ck_put(writer, ac->code[0], ac->size[0]);
                        continue;
                    }
                    ck_encode_block(writer, layout->rows[ci][block_row][block_column], &last_dc[ci], dc, ac);
                }
            }
        }
    }
    return 1;
}

static void *ck_encode_thread(void *argument) {
    ck_encode_mcus((ck_encode_band *)argument);
    return NULL;
}

// MARK: - The file

/// Appends `count` bytes as they are (byte-aligned). Returns 0 when the
/// writer failed.
static int ck_append(ck_bit_writer *writer, const uint8_t *bytes, size_t count) {
    while (count > 0) {
        if (writer->capacity == writer->length && !ck_writer_room(writer, 1)) return 0;
        size_t room = writer->capacity - writer->length;
        size_t take = count < room ? count : room;
        memcpy(writer->data + writer->length, bytes, take);
        writer->length += take;
        bytes += take;
        count -= take;
    }
    return 1;
}

/// Appends a marker segment: FF, the marker, the length, the body.
static int ck_put_segment(ck_bit_writer *writer, int marker, const uint8_t *body, size_t length) {
    uint8_t head[4] = {0xFF, (uint8_t)marker, (uint8_t)((length + 2) >> 8), (uint8_t)(length + 2)};
    return ck_append(writer, head, 4) && ck_append(writer, body, length);
}

int ck_jpeg_huffman_write(j_decompress_ptr source, j_compress_ptr output, jvirt_barray_ptr *arrays, int threads,
                          const uint8_t *markers, size_t markers_size, ck_write_fn write, void *context) {
    // A scan script (jpeg_simple_progression's) makes it progressive.
    if (output->arith_code || output->progressive_mode || output->scan_info != NULL || output->data_precision != 8 ||
        output->num_components < 1 || output->num_components > 4 || output->image_width > JPEG_MAX_DIMENSION ||
        output->image_height > JPEG_MAX_DIMENSION || output->restart_in_rows != 0) {
        return 0;
    }
    ck_layout layout;
    memset(&layout, 0, sizeof layout);
    layout.components = output->num_components;
    layout.restart = (long)output->restart_interval;
    int max_h = 1, max_v = 1, blocks_in_mcu = 0;
    for (int ci = 0; ci < layout.components; ci++) {
        jpeg_component_info *component = &output->comp_info[ci];
        int h = component->h_samp_factor, v = component->v_samp_factor;
        if (h < 1 || h > 4 || v < 1 || v > 4 || component->dc_tbl_no < 0 || component->dc_tbl_no > 3 ||
            component->ac_tbl_no < 0 || component->ac_tbl_no > 3 || component->quant_tbl_no < 0 ||
            component->quant_tbl_no >= NUM_QUANT_TBLS || output->quant_tbl_ptrs[component->quant_tbl_no] == NULL) {
            return 0;
        }
        if (h > max_h) max_h = h;
        if (v > max_v) max_v = v;
        layout.dc_table[ci] = component->dc_tbl_no;
        layout.ac_table[ci] = component->ac_tbl_no;
    }
    for (int ci = 0; ci < layout.components; ci++) {
        jpeg_component_info *component = &output->comp_info[ci];
        int h = component->h_samp_factor, v = component->v_samp_factor;
        layout.width_blocks[ci] = (JDIMENSION)(((uint64_t)output->image_width * (uint64_t)h + 8u * (uint64_t)max_h - 1) /
                                               (8u * (uint64_t)max_h));
        layout.height_blocks[ci] = (JDIMENSION)(
            ((uint64_t)output->image_height * (uint64_t)v + 8u * (uint64_t)max_v - 1) / (8u * (uint64_t)max_v));
        layout.mcu_width[ci] = layout.components == 1 ? 1 : h;
        layout.mcu_height[ci] = layout.components == 1 ? 1 : v;
        blocks_in_mcu += layout.mcu_width[ci] * layout.mcu_height[ci];
    }
    if (blocks_in_mcu > 10) return 0;
    if (layout.components == 1) {
        layout.mcus_per_row = (long)layout.width_blocks[0];
        layout.mcu_rows = (long)layout.height_blocks[0];
    } else {
        layout.mcus_per_row = ((long)output->image_width + 8L * max_h - 1) / (8L * max_h);
        layout.mcu_rows = ((long)output->image_height + 8L * max_v - 1) / (8L * max_v);
    }
    long mcus = layout.mcus_per_row * layout.mcu_rows;
    // Every block row's place, taken on this thread (the arrays are whole in
    // memory: libjpeg-turbo has no backing store).
    int ok = 1;
    for (int ci = 0; ci < layout.components && ok; ci++) {
        layout.rows[ci] = (JBLOCKROW *)calloc(layout.height_blocks[ci] + 1, sizeof(JBLOCKROW));
        if (layout.rows[ci] == NULL) {
            ok = 0;
            break;
        }
        for (JDIMENSION row = 0; row < layout.height_blocks[ci]; row++) {
            layout.rows[ci][row] = (*source->mem->access_virt_barray)((j_common_ptr)source, arrays[ci], row, 1, FALSE)[0];
        }
    }
    long *row_cost = ok ? (long *)calloc((size_t)layout.mcu_rows + 1, sizeof(long)) : NULL;
    ck_gather_band *gather = ok ? (ck_gather_band *)calloc(2, sizeof(ck_gather_band)) : NULL;
    ck_code_table *tables = ok ? (ck_code_table *)calloc(8, sizeof(ck_code_table)) : NULL;
    ck_encode_band *bands = ok ? (ck_encode_band *)calloc(2, sizeof(ck_encode_band)) : NULL;
    if (row_cost == NULL || gather == NULL || tables == NULL || bands == NULL) ok = 0;
    // The statistics: the MCU rows in two halves, side by side.
    int gather_count = threads > 1 && layout.mcu_rows >= 2 ? 2 : 1;
    if (ok) {
        long split = gather_count == 2 ? layout.mcu_rows / 2 : layout.mcu_rows;
        for (int b = 0; b < gather_count; b++) {
            gather[b].layout = &layout;
            gather[b].row_cost = row_cost;
            gather[b].first_row = b == 0 ? 0 : split;
            gather[b].end_row = b == 0 ? split : layout.mcu_rows;
        }
        pthread_t thread;
        int started = gather_count == 2 && pthread_create(&thread, NULL, ck_gather, &gather[1]) == 0;
        ck_gather(&gather[0]);
        if (gather_count == 2 && !started) ck_gather(&gather[1]);
        if (started) pthread_join(thread, NULL);
        for (int b = 0; b < gather_count; b++) ok = ok && gather[b].ok;
    }
    // The tables, built in component order, as finish_pass_gather builds them.
    int built[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int ci = 0; ci < layout.components && ok; ci++) {
        int slots[2] = {layout.dc_table[ci], 4 + layout.ac_table[ci]};
        for (int s = 0; s < 2 && ok; s++) {
            int slot = slots[s];
            if (built[slot]) continue;
            long counts[257];
            for (int symbol = 0; symbol < 257; symbol++) {
                counts[symbol] = s == 0 ? gather[0].dc_counts[slot][symbol] + gather[1].dc_counts[slot][symbol]
                                        : gather[0].ac_counts[slot - 4][symbol] + gather[1].ac_counts[slot - 4][symbol];
            }
            ok = ck_optimal_table(counts, tables[slot].bits, tables[slot].values, &tables[slot].value_count);
            if (ok) ck_code_table_derive(&tables[slot]);
            built[slot] = 1;
        }
    }
    // The encoding split where half the cost is behind: at an interval's
    // start with restart intervals (the second band starts with its marker,
    // byte-aligned), else at an MCU row.
    int band_count = 1;
    long split_mcu = mcus;
    if (ok && threads > 1 && layout.mcu_rows >= 2) {
        long total = 0, behind = 0, row = 0;
        for (long r = 0; r < layout.mcu_rows; r++) total += row_cost[r];
        while (row < layout.mcu_rows && 2 * (behind + row_cost[row]) <= total) behind += row_cost[row++];
        split_mcu = row * layout.mcus_per_row;
        if (layout.restart > 0) split_mcu = (split_mcu + layout.restart / 2) / layout.restart * layout.restart;
        if (split_mcu > 0 && split_mcu < mcus) band_count = 2;
    }
    int status = ok ? 1 : 0;
    uint8_t *chunk = ok ? (uint8_t *)malloc(ck_writer_chunk) : NULL;
    if (ok && chunk == NULL) status = 0;
    if (status == 1) {
        ck_bit_writer *file = &bands[0].writer;
        file->data = chunk;
        file->capacity = ck_writer_chunk;
        file->stuff = 1;
        file->write = write;
        file->context = context;
        // The headers, as jcmarker.c writes them: SOI, the kept segments,
        // DQT (each table once, in component order), SOF0 (SOF1 with a
        // 16-bit table), DHT (each table once), DRI, SOS.
        uint8_t body[3 * 4 + 6 + 2 * 64 + 1];
        static const uint8_t start[2] = {0xFF, 0xD8};
        int written = ck_append(file, start, 2);
        // Each whole segment, as ck_jpeg_write_markers hands them to
        // jpeg_write_marker.
        size_t at = 0;
        while (at + 4 <= markers_size) {
            size_t length = ((size_t)markers[at + 2] << 8) | markers[at + 3];
            if (markers[at] != 0xFF || length < 2 || at + 2 + length > markers_size) break;
            written = written && ck_put_segment(file, markers[at + 1], markers + at + 4, length - 2);
            at += 2 + length;
        }
        int sent_quant[NUM_QUANT_TBLS] = {0}, wide = 0;
        for (int ci = 0; ci < layout.components; ci++) {
            int slot = output->comp_info[ci].quant_tbl_no;
            const JQUANT_TBL *table = output->quant_tbl_ptrs[slot];
            int precision = 0;
            for (int i = 0; i < 64; i++) precision |= table->quantval[i] > 255;
            wide |= precision;
            if (sent_quant[slot]) continue;
            sent_quant[slot] = 1;
            size_t length = 0;
            body[length++] = (uint8_t)(slot + (precision << 4));
            for (int i = 0; i < 64; i++) {
                unsigned value = table->quantval[ck_zigzag[i]];
                if (precision) body[length++] = (uint8_t)(value >> 8);
                body[length++] = (uint8_t)value;
            }
            written = written && ck_put_segment(file, 0xDB, body, length);
        }
        size_t length = 0;
        body[length++] = 8;
        body[length++] = (uint8_t)(output->image_height >> 8);
        body[length++] = (uint8_t)output->image_height;
        body[length++] = (uint8_t)(output->image_width >> 8);
        body[length++] = (uint8_t)output->image_width;
        body[length++] = (uint8_t)layout.components;
        for (int ci = 0; ci < layout.components; ci++) {
            jpeg_component_info *component = &output->comp_info[ci];
            body[length++] = (uint8_t)component->component_id;
            body[length++] = (uint8_t)((component->h_samp_factor << 4) + component->v_samp_factor);
            body[length++] = (uint8_t)component->quant_tbl_no;
        }
        // Baseline unless a table is 16-bit (every table slot here is 0-3,
        // and libjpeg-turbo's are 0 or 1).
        int baseline = !wide;
        for (int ci = 0; ci < layout.components; ci++) {
            if (layout.dc_table[ci] > 1 || layout.ac_table[ci] > 1) baseline = 0;
        }
        written = written && ck_put_segment(file, baseline ? 0xC0 : 0xC1, body, length);
        int sent_huffman[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        for (int ci = 0; ci < layout.components; ci++) {
            int slots[2] = {layout.dc_table[ci], 4 + layout.ac_table[ci]};
            for (int s = 0; s < 2; s++) {
                int slot = slots[s];
                if (sent_huffman[slot]) continue;
                sent_huffman[slot] = 1;
                const ck_code_table *table = &tables[slot];
                uint8_t dht[1 + 16 + 256];
                size_t count = 0;
                dht[count++] = (uint8_t)(s == 0 ? slot : 0x10 + slot - 4);
                int values = 0;
                for (int i = 1; i <= 16; i++) {
                    dht[count++] = table->bits[i];
                    values += table->bits[i];
                }
                memcpy(dht + count, table->values, (size_t)values);
                count += (size_t)values;
                written = written && ck_put_segment(file, 0xC4, dht, count);
            }
        }
        if (layout.restart > 0) {
            uint8_t dri[2] = {(uint8_t)(layout.restart >> 8), (uint8_t)layout.restart};
            written = written && ck_put_segment(file, 0xDD, dri, 2);
        }
        length = 0;
        body[length++] = (uint8_t)layout.components;
        for (int ci = 0; ci < layout.components; ci++) {
            body[length++] = (uint8_t)output->comp_info[ci].component_id;
            body[length++] = (uint8_t)((layout.dc_table[ci] << 4) + layout.ac_table[ci]);
        }
        body[length++] = 0;
        body[length++] = 63;
        body[length++] = 0;
        written = written && ck_put_segment(file, 0xDA, body, length);
        if (!written) status = -1;
    }
    if (status == 1) {
        // The scan: the first band streams to the file on this thread; the
        // second waits in memory (at most twice its blocks' coefficient
        // bytes: past that it is encoded after the first, here).
        for (int b = 0; b < band_count; b++) {
            bands[b].layout = &layout;
            bands[b].tables = tables;
            bands[b].first_mcu = b == 0 ? 0 : split_mcu;
            bands[b].end_mcu = b + 1 < band_count ? split_mcu : mcus;
        }
        pthread_t thread;
        int started = 0;
        if (band_count == 2) {
            ck_bit_writer *second = &bands[1].writer;
            second->stuff = layout.restart > 0;
            second->limit = (size_t)(mcus - split_mcu) * (size_t)blocks_in_mcu * 2 * sizeof(JBLOCK) + ck_mcu_room;
            second->capacity = ck_writer_chunk;
            second->data = (uint8_t *)malloc(second->capacity);
            started = second->data != NULL && pthread_create(&thread, NULL, ck_encode_thread, &bands[1]) == 0;
        }
        int first_ok = ck_encode_mcus(&bands[0]);
        if (started) pthread_join(thread, NULL);
        ck_bit_writer *file = &bands[0].writer;
        if (first_ok && band_count == 2) {
            ck_bit_writer *second = &bands[1].writer;
            if (!started || second->over || second->failed) {
                // The second band is encoded here, after the first.
                bands[0].first_mcu = split_mcu;
                bands[0].end_mcu = mcus;
                first_ok = ck_encode_mcus(&bands[0]);
            } else if (second->stuff) {
                // It starts with its restart marker: the first band's last
                // byte padded, its bytes as they are.
                first_ok = ck_writer_room(file, 16);
                if (first_ok) ck_flush(file, 1);
                first_ok = first_ok && ck_append(file, second->data, second->length) && ck_writer_room(file, 16);
                if (first_ok && second->bits > 0) {
                    ck_put(file, (uint32_t)(second->accumulator & ((1u << second->bits) - 1)), second->bits);
                }
            } else {
                // Unstuffed: shifted onto the first band's last bits, four
                // bytes at a time, stuffed as they land.
                ck_flush(second, 0);
                size_t done = 0;
                while (first_ok && done + 4 <= second->length) {
                    if ((done & 0x3FFF) == 0) first_ok = ck_writer_room(file, 0x4000 * 2 + 16);
                    if (!first_ok) break;
                    const uint8_t *p = second->data + done;
                    ck_put(file, ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3], 32);
                    done += 4;
                }
                if (first_ok) first_ok = ck_writer_room(file, 64);
                for (; first_ok && done < second->length; done++) ck_put(file, second->data[done], 8);
                if (first_ok && second->bits > 0) {
                    ck_put(file, (uint32_t)(second->accumulator & ((1u << second->bits) - 1)), second->bits);
                }
            }
        }
        if (first_ok) first_ok = ck_writer_room(file, 16);
        if (first_ok) {
            ck_flush(file, 1);
            file->data[file->length++] = 0xFF;
            file->data[file->length++] = 0xD9;
            if (write(context, file->data, file->length) != 0) file->failed = 1;
            file->length = 0;
        }
        if (!first_ok || file->failed) status = -1;
        free(bands[1].writer.data);
    }
    free(chunk);
    free(bands);
    free(tables);
    free(gather);
    free(row_cost);
    for (int ci = 0; ci < 4; ci++) free(layout.rows[ci]);
    return status;
}
