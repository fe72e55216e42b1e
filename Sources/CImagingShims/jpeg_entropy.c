// CropKit's own entropy decoder for baseline (sequential Huffman, 8-bit,
// one interleaved scan) JPEGs, used by the lossless crop: it decodes only
// the MCU rows the crop needs, jumping to the restart marker before the
// crop's first row when the file has restart intervals, and stores only the
// blocks inside the rect. Anything it does not expect (a bad code, a
// marker out of place or out of order, data ending early) makes it give up,
// and the crop falls back to libjpeg-turbo's decoder, so a damaged file
// behaves exactly as before.
#include "jpeg_internal.h"

#include <pthread.h>
#include <sys/mman.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/// The zigzag order of the 64 coefficients of a block, in natural order
/// (row by row), and 16 extra entries so that a corrupt run past the end
/// lands in a harmless slot instead of past the block.
static const int ck_natural_order[64 + 16] = {
    0,  1,  8,  16, 9,  2,  3,  10, 17, 24, 32, 25, 18, 11, 4,  5,  12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13,
    6,  7,  14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31,
    39, 46, 53, 60, 61, 54, 47, 55, 62, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63};

/// A Huffman table made ready for decoding: a 9-bit lookahead for the
/// short codes, and the canonical limits for the longer ones.
typedef struct {
    /// (length << 8) | symbol for each 9-bit prefix whose code is at most 9
    /// bits long; 0 otherwise.
    uint16_t lookup[1 << 9];
    /// For an AC table, each 9-bit prefix that holds a whole code and its
    /// value bits (a short run and a small coefficient, most of them):
    /// (value << 8) | (run << 4) | bits taken; 0 otherwise (stb_image's
    /// fast AC table).
    int16_t fast_ac[1 << 9];
    /// The largest code of each length (-1: none), and the offset of its
    /// first symbol in huffval minus its first code.
    int32_t maxcode[18];
    int32_t valoffset[18];
    uint8_t huffval[256];
} ck_huffman;

/// Builds `table` from a DHT table; 0 when the table cannot be a prefix
/// code (more codes of a length than fit).
static int ck_huffman_build(ck_huffman *table, const JHUFF_TBL *source) {
    if (source == NULL) return 0;
    memset(table, 0, sizeof *table);
    int count = 0;
    for (int length = 1; length <= 16; length++) count += source->bits[length];
    if (count > 256) return 0;
    memcpy(table->huffval, source->huffval, (size_t)count);
    int32_t code = 0;
    int index = 0;
    for (int length = 1; length <= 16; length++) {
        int n = source->bits[length];
        table->valoffset[length] = index - code;
        for (int i = 0; i < n; i++, index++, code++) {
            if (code >= (1 << length)) return 0;  // more codes than fit
            if (length <= 9) {
                int shift = 9 - length;
                for (int fill = 0; fill < (1 << shift); fill++) {
                    table->lookup[(code << shift) | fill] = (uint16_t)((length << 8) | source->huffval[index]);
                }
            }
        }
        table->maxcode[length] = n > 0 ? code - 1 : -1;
        if (code > (1 << length)) return 0;
        code <<= 1;
    }
    table->maxcode[17] = 0x7FFFFFFF;
    return 1;
}

/// Fills `table->fast_ac` from its lookup table.
static void ck_huffman_fast_ac(ck_huffman *table) {
    for (int prefix = 0; prefix < (1 << 9); prefix++) {
        table->fast_ac[prefix] = 0;
        uint16_t entry = table->lookup[prefix];
        if (entry == 0) continue;
        int length = entry >> 8, symbol = entry & 0xFF;
        int run = symbol >> 4, size = symbol & 15;
        if (size == 0 || length + size > 9) continue;
        int raw = (prefix >> (9 - length - size)) & ((1 << size) - 1);
        int value = raw < (1 << (size - 1)) ? raw - (1 << size) + 1 : raw;
        if (value < -128 || value > 127) continue;
        table->fast_ac[prefix] = (int16_t)((value * 256) + (run << 4) + length + size);
    }
}

/// The scan's bits, read a chunk at a time, unstuffed (FF 00 is FF); a
/// marker stops the filling until ck_bits_restart takes it.
typedef struct {
    const ck_input *input;
    uint64_t offset;  // the input offset of buffer[0]
    uint64_t end;     // the input's size
    uint8_t *buffer;
    size_t length, at;
    uint64_t accumulator;
    int bits;
    /// The marker met (its second byte), or 0.
    int marker;
    /// Zero bits appended after a marker (or the data's end), so that a
    /// peek never runs short; a decode that takes any of them has run past
    /// its data (found where the interval or band ends).
    int padding;
    /// The data's bits put into the accumulator so far (stuffing and
    /// padding not counted): with `bits` and `padding`, where the next bit
    /// lies in the unstuffed data.
    uint64_t loaded;
} ck_bits;

/// How many bits of the unstuffed data from where the reader started it
/// has taken.
static inline uint64_t ck_bits_taken(const ck_bits *reader) {
    return reader->loaded - (uint64_t)(reader->bits - reader->padding);
}

enum { ck_bits_chunk = 1 << 18 };

/// The next byte of the input, or -1 at its end or on a read error.
static inline int ck_bits_byte(ck_bits *reader) {
    if (reader->at == reader->length) {
        reader->offset += reader->length;
        reader->length = reader->at = 0;
        if (reader->offset >= reader->end) return -1;
        long got = ck_input_read(reader->input, reader->offset, reader->buffer, ck_bits_chunk);
        if (got <= 0) return -1;
        reader->length = (size_t)got;
    }
    return reader->buffer[reader->at++];
}

static void ck_bits_fill(ck_bits *reader) {
    // Six bytes at once while none of them is 0xFF (stuffing or a marker):
    // most of a scan.
    while (reader->bits <= 16 && !reader->marker && reader->length - reader->at >= 6) {
        const uint8_t *p = reader->buffer + reader->at;
        if (p[0] == 0xFF || p[1] == 0xFF || p[2] == 0xFF || p[3] == 0xFF || p[4] == 0xFF || p[5] == 0xFF) break;
        uint64_t six = ((uint64_t)p[0] << 40) | ((uint64_t)p[1] << 32) | ((uint64_t)p[2] << 24) |
                       ((uint64_t)p[3] << 16) | ((uint64_t)p[4] << 8) | (uint64_t)p[5];
        reader->accumulator = (reader->accumulator << 48) | six;
        reader->bits += 48;
        reader->loaded += 48;
        reader->at += 6;
    }
    while (reader->bits <= 56 && !reader->marker) {
        int byte = ck_bits_byte(reader);
        if (byte < 0) {
            reader->marker = -1;
            break;
        }
        if (byte == 0xFF) {
            int next;
            do next = ck_bits_byte(reader);
            while (next == 0xFF);
            if (next < 0) {
                reader->marker = -1;
                break;
            }
            if (next != 0) {
                reader->marker = next;
                break;
            }
        }
        reader->accumulator = (reader->accumulator << 8) | (uint64_t)byte;
        reader->bits += 8;
        reader->loaded += 8;
    }
    while (reader->bits <= 56) {
        reader->accumulator <<= 8;
        reader->bits += 8;
        reader->padding += 8;
    }
}

/// Ends a restart interval: only the last byte's padding may be left, then
/// RSTn with n the interval's number modulo 8. Returns 0 when it is not so.
/// Whether the data read so far ended exactly, but for the last byte's
/// padding, where a marker follows (which `reader->marker` then holds).
static int ck_bits_at_marker(ck_bits *reader) {
    int real = reader->bits - reader->padding;
    if (real < 0 || real >= 8) return 0;
    if (reader->marker == 0) {
        reader->bits = reader->padding = 0;
        reader->accumulator = 0;
        ck_bits_fill(reader);
        if (reader->bits != reader->padding || reader->marker <= 0) return 0;
    }
    return reader->marker > 0;
}

static int ck_bits_restart(ck_bits *reader, int number) {
    if (!ck_bits_at_marker(reader)) return 0;
    if (reader->marker != 0xD0 + (number & 7)) return 0;
    reader->marker = 0;
    reader->bits = 0;
    reader->padding = 0;
    reader->accumulator = 0;
    return 1;
}

/// A reader of the input's data from `offset`, with a chunk buffer of its
/// own (freed by the caller); 0 when there is no memory for it.
static int ck_bits_open(ck_bits *reader, const ck_input *input, uint64_t offset) {
    memset(reader, 0, sizeof *reader);
    reader->buffer = (uint8_t *)malloc(ck_bits_chunk);
    reader->input = input;
    reader->end = input->size;
    reader->offset = offset;
    return reader->buffer != NULL;
}

/// Passes over `count` bits of data; 0 when the data ends first.
static int ck_bits_skip(ck_bits *reader, uint64_t count) {
    while (count > 0) {
        if (reader->bits <= reader->padding) {
            ck_bits_fill(reader);
            if (reader->bits <= reader->padding) return 0;
        }
        uint64_t real = (uint64_t)(reader->bits - reader->padding);
        uint64_t take = count < real ? count : real;
        reader->bits -= (int)take;
        count -= take;
    }
    return 1;
}

/// The bit state in registers for one block; the reader's fields are
/// synced only around a refill.
#define CK_NEED(n)                                                                                                    \
    do {                                                                                                              \
        if (bits < (n)) {                                                                                             \
            reader->accumulator = acc;                                                                                \
            reader->bits = bits;                                                                                      \
            ck_bits_fill(reader);                                                                                     \
            acc = reader->accumulator;                                                                                \
            bits = reader->bits;                                                                                      \
        }                                                                                                             \
    } while (0)
// After CK_NEED(n) at least n bits are there (zeros past a marker).
#define CK_PEEK(n) ((uint32_t)(acc >> (bits - (n))) & ((1u << (n)) - 1))
#define CK_SKIP(n) (bits -= (n))

/// The next Huffman symbol of `table` (-1: no code matches).
#define CK_SYMBOL(table, out)                                                                                         \
    do {                                                                                                              \
        CK_NEED(16);                                                                                                  \
        uint16_t entry_ = (table)->lookup[CK_PEEK(9)];                                                                \
        if (entry_ != 0) {                                                                                            \
            CK_SKIP(entry_ >> 8);                                                                                     \
            (out) = entry_ & 0xFF;                                                                                    \
        } else {                                                                                                      \
            uint32_t code_ = CK_PEEK(16);                                                                             \
            int length_ = 10;                                                                                         \
            while (length_ <= 16 && (int32_t)(code_ >> (16 - length_)) > (table)->maxcode[length_]) length_++;        \
            if (length_ > 16) goto fail;                                                                              \
            int index_ = (table)->valoffset[length_] + (int32_t)(code_ >> (16 - length_));                            \
            if (index_ < 0 || index_ > 255) goto fail;                                                                \
            CK_SKIP(length_);                                                                                         \
            (out) = (table)->huffval[index_];                                                                         \
        }                                                                                                             \
    } while (0)

/// The signed value of `n` more bits (JPEG's EXTEND), n from 1 to 16.
#define CK_VALUE(n, out)                                                                                              \
    do {                                                                                                              \
        CK_NEED(n);                                                                                                   \
        int raw_ = (int)CK_PEEK(n);                                                                                   \
        CK_SKIP(n);                                                                                                   \
        (out) = raw_ < (1 << ((n) - 1)) ? raw_ + (int)(~0u << (n)) + 1 : raw_;                                        \
    } while (0)

/// How a decoded block is kept: not at all (its DC still predicts the
/// next), as 64 coefficients in natural order, or compactly: a byte with
/// the count of nonzero AC coefficients, the DC (16 bits, little-endian),
/// then each such coefficient's zigzag index and value (the speculative
/// decoder's store, placed once its MCU is known).
enum { ck_keep_none = 0, ck_keep_block = 1, ck_keep_compact = 2 };

/// The bytes a compact block takes at most.
enum { ck_compact_block_bytes = 3 + 63 * 3 };

/// Decodes one block into `block` (its DC through `predictor`; its AC
/// only when `kept` is ck_keep_block), or at `*compact` (advanced past it)
/// when `kept` is ck_keep_compact. Returns 0 when the data is not a block.
static inline __attribute__((always_inline)) int ck_decode_block(ck_bits *reader, const ck_huffman *dc,
                                                                 const ck_huffman *ac, int *predictor, JCOEF *block,
                                                                 int kept, uint8_t **compact) {
    uint8_t *head = kept == ck_keep_compact ? *compact : NULL;
    uint8_t *out = kept == ck_keep_compact ? head + 3 : NULL;
    uint64_t acc = reader->accumulator;
    int bits = reader->bits;
    int size;
    CK_SYMBOL(dc, size);
    if (size != 0) {
        if (size > 16) goto fail;
        int diff;
        CK_VALUE(size, diff);
        *predictor = (int)((unsigned)*predictor + (unsigned)diff);
    }
    if (kept == ck_keep_compact) {
        head[1] = (uint8_t)*predictor;
        head[2] = (uint8_t)((unsigned)*predictor >> 8);
    } else {
        block[0] = (JCOEF)*predictor;
    }
    for (int k = 1; k < 64;) {
        CK_NEED(16);
        int fast = ac->fast_ac[CK_PEEK(9)];
        if (fast != 0) {
            CK_SKIP(fast & 15);
            k += (fast >> 4) & 15;
            if (k > 63) goto fail;
            if (kept == ck_keep_block) block[ck_natural_order[k]] = (JCOEF)(fast >> 8);
            if (kept == ck_keep_compact) {
                out[0] = (uint8_t)k;
                out[1] = (uint8_t)(fast >> 8);
                out[2] = (uint8_t)((unsigned)(fast >> 8) >> 8);
                out += 3;
            }
            k += 1;
            continue;
        }
        int symbol;
        CK_SYMBOL(ac, symbol);
        int run = symbol >> 4, length = symbol & 15;
        if (length != 0) {
            k += run;
            int value;
            CK_VALUE(length, value);
            if (k > 63) goto fail;
            if (kept == ck_keep_block) block[ck_natural_order[k]] = (JCOEF)value;
            if (kept == ck_keep_compact) {
                out[0] = (uint8_t)k;
                out[1] = (uint8_t)value;
                out[2] = (uint8_t)((unsigned)value >> 8);
                out += 3;
            }
            k += 1;
        } else if (run == 15) {
            k += 16;
        } else {
            break;
        }
    }
    reader->accumulator = acc;
    reader->bits = bits;
    if (kept == ck_keep_compact) {
        head[0] = (uint8_t)((out - head - 3) / 3);
        *compact = out;
    }
    return 1;
fail:
    reader->accumulator = acc;
    reader->bits = bits;
    return 0;
}

/// A walk over the bytes of the input that follow an FF (the only ones
/// that can start a marker or be stuffing), from `offset` on, memchr from
/// one FF to the next.
typedef struct {
    const ck_input *input;
    uint8_t *buffer;
    uint64_t offset;  // the input offset of buffer[0]
    long got, at;
    int after_ff;
} ck_ff_walk;

static ck_ff_walk ck_ff_walk_from(const ck_input *input, uint64_t offset, uint8_t *buffer) {
    ck_ff_walk walk = {input, buffer, offset, 0, 0, 0};
    return walk;
}

/// The next byte that follows an FF (an FF itself when FFs run on), and its
/// input offset; 0 at the input's end or a read error.
static int ck_ff_next(ck_ff_walk *walk, uint64_t *offset, uint8_t *byte) {
    for (;;) {
        if (walk->at >= walk->got) {
            walk->offset += (uint64_t)walk->got;
            walk->got = ck_input_read(walk->input, walk->offset, walk->buffer, ck_bits_chunk);
            walk->at = 0;
            if (walk->got <= 0) return 0;
        }
        if (!walk->after_ff) {
            const uint8_t *hit =
                (const uint8_t *)memchr(walk->buffer + walk->at, 0xFF, (size_t)(walk->got - walk->at));
            walk->at = hit == NULL ? walk->got : hit - walk->buffer + 1;
            walk->after_ff = hit != NULL;
            continue;
        }
        *byte = walk->buffer[walk->at];
        *offset = walk->offset + (uint64_t)walk->at;
        walk->at += 1;
        walk->after_ff = *byte == 0xFF;
        return 1;
    }
}

/// Finds the input offset just past the `count`-th restart marker after
/// `start` (a point in the scan just past marker number `passed`, or the
/// scan's first byte with `passed` 0), checking their numbers; 0 when there
/// are fewer or one is out of order.
static uint64_t ck_find_restart(const ck_input *input, uint64_t start, uint64_t end, long count, long passed,
                                uint8_t *buffer) {
    long found = 0;
    ck_ff_walk walk = ck_ff_walk_from(input, start, buffer);
    uint64_t at;
    uint8_t byte;
    while (found < count && ck_ff_next(&walk, &at, &byte) && at < end) {
        if (byte >= 0xD0 && byte <= 0xD7) {
            if (byte != 0xD0 + ((passed + found) & 7)) return 0;
            found += 1;
            if (found == count) return at + 1;
        } else if (byte != 0 && byte != 0xFF) {
            return 0;  // another marker: the scan ended
        }
    }
    return 0;
}

/// What every band of a scan shares: the frame, the tables, and where each
/// of the crop's block rows is.
typedef struct {
    j_decompress_ptr cinfo;
    const ck_input *input;
    const ck_jpeg_entropy_crop *crop;
    const ck_huffman *tables;
    int dc_table[4], ac_table[4];
    /// Each component's crop block rows (height_blocks of them).
    JBLOCKROW *rows[4];
    long mcus_per_row, restart;
} ck_scan;

/// Where the speculative decoder found an MCU to start: the unstuffed
/// bit of the scan it starts at, its DC predictions there (its own, which
/// differ from the true ones by a constant per component once it is in
/// step), and where its blocks lie in the compact store.
typedef struct {
    uint64_t bit;
    int dc[4];
    size_t data;
} ck_mcu_start;

/// The second core's decode of a scan without restart markers: it starts
/// at a byte in the middle (`offset`) as if an MCU started there, and
/// keeps every MCU it decodes (where each starts, its blocks compactly),
/// not knowing which MCU of the image each is. Huffman codes
/// resynchronize: once the first band reaches an MCU start at the same
/// bit, the two decodes agree from there on, and the MCUs it kept from
/// that one on are the image's, their DC shifted by the first band's
/// predictions.
typedef struct {
    const ck_scan *scan;
    uint64_t offset;
    /// The unstuffed bit of the scan `offset` is.
    uint64_t first_bit;
    ck_mcu_start *starts;
    long capacity;
    uint8_t *data;
    size_t data_size, data_limit;
    /// MCUs decoded and published (their starts readable by the first band).
    _Atomic long published;
    /// The first band's word: decode no MCU from this count on.
    _Atomic long stop_at;
    /// When it ended: the MCUs it decoded, where the next would have
    /// started, and whether only padding and a marker were left there (the
    /// scan's end).
    long count;
    ck_mcu_start end;
    int ended_at_marker;
    /// The last MCU at which it met data it could not decode and started
    /// afresh (-1: none): at or after the MCU the first band met it at,
    /// that is damage, which the first band refuses, and so the crop.
    long restarted_at;
} ck_speculation;

/// One band of MCUs decoded by one thread: from `start_mcu` (at `offset`,
/// a restart interval's start or the scan's), storing the blocks of the
/// MCUs from `store_from` on, up to `end_mcu` (not included). With
/// `speculation`, it stops at the first MCU whose start the speculative
/// decoder also found (`synced_mcu`, its `synced_start`, the predictions
/// there in `synced_dc`).
typedef struct {
    const ck_scan *scan;
    uint64_t offset;
    long start_mcu, store_from, end_mcu;
    /// Whether the band ends the image (its end is checked).
    int ends_image;
    ck_speculation *speculation;
    /// Bits of the unstuffed data to pass over from `offset` first, and the
    /// DC predictions there (a band that takes over where the speculative
    /// decoder stopped).
    uint64_t skip_bits;
    int initial_dc[4];
    long synced_mcu, synced_start;
    int synced_dc[4];
    int ok;
} ck_band;

/// Whether `band` (at MCU `mcu`, `taken` bits into the scan, with its
/// predictions) meets an MCU start the speculative decoder published;
/// `*next` is the first start not yet passed.
static int ck_band_meets(ck_band *band, ck_speculation *speculation, long mcu, uint64_t taken, const int dc[4],
                         long *next) {
    if (taken < speculation->first_bit) return 0;
    long published = atomic_load_explicit(&speculation->published, memory_order_acquire);
    while (*next < published && speculation->starts[*next].bit < taken) *next += 1;
    if (*next >= published || speculation->starts[*next].bit != taken) return 0;
    band->synced_mcu = mcu;
    band->synced_start = *next;
    memcpy(band->synced_dc, dc, sizeof band->synced_dc);
    return 1;
}

static void *ck_band_decode(void *argument) {
    ck_band *band = (ck_band *)argument;
    const ck_scan *scan = band->scan;
    j_decompress_ptr cinfo = scan->cinfo;
    const ck_jpeg_entropy_crop *crop = scan->crop;
    band->ok = 0;
    ck_bits reader;
    if (!ck_bits_open(&reader, scan->input, band->offset)) return NULL;
    int predictor[4];
    memcpy(predictor, band->initial_dc, sizeof predictor);
    long restart = scan->restart;
    long interval_number = restart > 0 ? band->start_mcu / restart : 0;
    JCOEF scratch[64 + 16];
    int ok = band->skip_bits == 0 || ck_bits_skip(&reader, band->skip_bits);
    band->synced_mcu = -1;
    long next_start = 0;
    for (long mcu = band->start_mcu; ok && mcu < band->end_mcu; mcu++) {
        if (band->speculation != NULL &&
            ck_band_meets(band, band->speculation, mcu, ck_bits_taken(&reader), predictor, &next_start)) {
            break;
        }
        if (restart > 0 && mcu > band->start_mcu && mcu % restart == 0) {
            if (!ck_bits_restart(&reader, (int)interval_number)) {
                ok = 0;
                break;
            }
            interval_number += 1;
            predictor[0] = predictor[1] = predictor[2] = predictor[3] = 0;
        }
        long mcu_row = mcu / scan->mcus_per_row;
        long mcu_column = mcu % scan->mcus_per_row;
        int in_rows = mcu >= band->store_from && mcu_row >= crop->first_imcu_row;
        for (int ci = 0; ci < cinfo->num_components && ok; ci++) {
            jpeg_component_info *component = &cinfo->comp_info[ci];
            const ck_huffman *dc = &scan->tables[scan->dc_table[ci]];
            const ck_huffman *ac = &scan->tables[scan->ac_table[ci]];
            for (int v = 0; v < component->v_samp_factor && ok; v++) {
                long block_row = (mcu_row - crop->first_imcu_row) * component->v_samp_factor + v;
                int row_kept = in_rows && block_row < (long)crop->height_blocks[ci];
                for (int h = 0; h < component->h_samp_factor; h++) {
                    long column = mcu_column * component->h_samp_factor + h - (long)crop->x_blocks[ci];
                    int kept = row_kept && column >= 0 && column < (long)crop->count[ci];
                    JCOEF *block = kept ? scan->rows[ci][block_row][column] : scratch;
                    if (kept) memset(block, 0, sizeof(JBLOCK));
                    if (!ck_decode_block(&reader, dc, ac, &predictor[ci], block, kept, NULL)) {
                        ok = 0;
                        break;
                    }
                }
            }
        }
    }
    // A band that took padding ran past its data. At the image's end
    // libjpeg warns of bytes between the last block and the next marker:
    // such a file is left to it.
    if (ok && reader.bits < reader.padding) ok = 0;
    if (ok && band->ends_image && band->synced_mcu < 0) ok = ck_bits_at_marker(&reader);
    free(reader.buffer);
    band->ok = ok;
    return NULL;
}

static void *ck_speculate(void *argument) {
    ck_speculation *speculation = (ck_speculation *)argument;
    const ck_scan *scan = speculation->scan;
    j_decompress_ptr cinfo = scan->cinfo;
    speculation->count = 0;
    speculation->ended_at_marker = 0;
    speculation->restarted_at = -1;
    ck_bits reader;
    if (!ck_bits_open(&reader, scan->input, speculation->offset)) return NULL;
    uint8_t *buffer = reader.buffer;
    int predictor[4] = {0, 0, 0, 0};
    int blocks = 0;
    for (int ci = 0; ci < cinfo->num_components; ci++) {
        blocks += cinfo->comp_info[ci].h_samp_factor * cinfo->comp_info[ci].v_samp_factor;
    }
    size_t room = (size_t)blocks * ck_compact_block_bytes;
    long mcu = 0;
    for (; mcu < speculation->capacity; mcu++) {
        ck_mcu_start *start = &speculation->starts[mcu];
        start->bit = speculation->first_bit + ck_bits_taken(&reader);
        memcpy(start->dc, predictor, sizeof start->dc);
        start->data = speculation->data_size;
        if (mcu >= atomic_load_explicit(&speculation->stop_at, memory_order_relaxed)) {
            // Told where the crop's rows end: whether the scan ends there.
            speculation->ended_at_marker = ck_bits_at_marker(&reader);
            break;
        }
        // The store grows here, on this thread; the first band reads it
        // only after joining.
        if (speculation->data_size + room > speculation->data_limit) break;
        uint8_t *out = speculation->data + speculation->data_size;
        ck_bits before = reader;
        int ok = 1;
        for (int ci = 0; ci < cinfo->num_components && ok; ci++) {
            jpeg_component_info *component = &cinfo->comp_info[ci];
            const ck_huffman *dc = &scan->tables[scan->dc_table[ci]];
            const ck_huffman *ac = &scan->tables[scan->ac_table[ci]];
            int count = component->h_samp_factor * component->v_samp_factor;
            for (int b = 0; b < count && ok; b++) {
                ok = ck_decode_block(&reader, dc, ac, &predictor[ci], NULL, ck_keep_compact, &out);
            }
        }
        if (ok && reader.bits < reader.padding) ok = 0;
        if (!ok && reader.marker == 0) {
            // Not a code of this table, or a run past the block's end: not
            // yet in step (or damage, which the first band meets too). A
            // new MCU is taken to start here (a bit on, if none was taken).
            if (ck_bits_taken(&reader) == ck_bits_taken(&before) && !ck_bits_skip(&reader, 1)) break;
            speculation->restarted_at = mcu;
            mcu -= 1;
            continue;
        }
        if (!ok) {
            // Where the data ended (or went wrong): whether only padding
            // and a marker are left at this MCU's start (the buffer read
            // again if the block's decode refilled it).
            if (reader.offset != before.offset && before.length > 0 &&
                ck_input_read(scan->input, before.offset, buffer, before.length) != (long)before.length) {
                break;
            }
            reader = before;
            speculation->ended_at_marker = ck_bits_at_marker(&reader);
            break;
        }
        speculation->data_size = (size_t)(out - speculation->data);
        atomic_store_explicit(&speculation->published, mcu + 1, memory_order_release);
    }
    speculation->count = mcu;
    if (mcu < speculation->capacity) speculation->end = speculation->starts[mcu];
    free(buffer);
    return NULL;
}

/// Memory for the speculative decoder's store, asked for in huge pages
/// where the system has them (a few faults instead of one a page); NULL
/// when there is none.
static uint8_t *ck_map_store(size_t size) {
    void *memory = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) return NULL;
#if defined(MADV_HUGEPAGE)
    (void)madvise(memory, size, MADV_HUGEPAGE);
#endif
    return (uint8_t *)memory;
}

static void ck_unmap_store(uint8_t *memory, size_t size) {
    if (memory != NULL) munmap(memory, size);
}

/// Stores the crop's blocks of the speculative decoder's MCUs `first` to
/// `end` (not included), the image's MCUs from `first + shift` on, each
/// DC moved by `offset` (the true prediction minus its own).
static void ck_place_speculated(const ck_scan *scan, const ck_speculation *speculation, long first, long end,
                                long shift, const int offset[4]) {
    j_decompress_ptr cinfo = scan->cinfo;
    const ck_jpeg_entropy_crop *crop = scan->crop;
    for (long j = first; j < end; j++) {
        long mcu = j + shift;
        long mcu_row = mcu / scan->mcus_per_row, mcu_column = mcu % scan->mcus_per_row;
        if (mcu_row < crop->first_imcu_row) continue;
        const uint8_t *at = speculation->data + speculation->starts[j].data;
        for (int ci = 0; ci < cinfo->num_components; ci++) {
            jpeg_component_info *component = &cinfo->comp_info[ci];
            for (int v = 0; v < component->v_samp_factor; v++) {
                long block_row = (mcu_row - crop->first_imcu_row) * component->v_samp_factor + v;
                int row_kept = block_row < (long)crop->height_blocks[ci];
                for (int h = 0; h < component->h_samp_factor; h++) {
                    int count = at[0];
                    long column = mcu_column * component->h_samp_factor + h - (long)crop->x_blocks[ci];
                    if (row_kept && column >= 0 && column < (long)crop->count[ci]) {
                        JCOEF *block = scan->rows[ci][block_row][column];
                        memset(block, 0, sizeof(JBLOCK));
                        block[0] = (JCOEF)((int16_t)(at[1] | (at[2] << 8)) + offset[ci]);
                        for (int i = 0; i < count; i++) {
                            const uint8_t *pair = at + 3 + 3 * i;
                            block[ck_natural_order[pair[0]]] = (JCOEF)(int16_t)(pair[1] | (pair[2] << 8));
                        }
                    }
                    at += 3 + 3 * count;
                }
            }
        }
    }
}

/// Where the scan starting at `start` ends: the first marker that is not
/// a restart marker (or the input's end). Also how many of its bytes
/// before `*split` are stuffing (the 00 of FF 00), with `*split` moved past
/// any FF so that it falls on a byte of data. With `only_before_split` it
/// stops once past `*split` (and returns the input's size).
static uint64_t ck_scan_end(const ck_input *input, uint64_t start, uint64_t *split, uint64_t *stuffed,
                            int only_before_split, uint8_t *buffer) {
    *stuffed = 0;
    ck_ff_walk walk = ck_ff_walk_from(input, start, buffer);
    uint64_t at;
    uint8_t byte;
    while (ck_ff_next(&walk, &at, &byte)) {
        if (at == *split) *split += 1;  // never just after an FF
        if (byte == 0) {
            if (at < *split) *stuffed += 1;
        } else if (byte != 0xFF && (byte < 0xD0 || byte > 0xD7)) {
            return at - 1;
        }
        if (only_before_split && at > *split) return input->size;
    }
    return input->size;
}

int ck_jpeg_entropy_decode(j_decompress_ptr cinfo, uint64_t scan_offset, const ck_input *input,
                           const ck_jpeg_entropy_crop *crop, jvirt_barray_ptr *crop_arrays) {
    if (cinfo->progressive_mode || cinfo->arith_code || cinfo->data_precision != 8 ||
        cinfo->comps_in_scan != cinfo->num_components || cinfo->num_components > 4) {
        return 0;
    }
    ck_huffman *tables = (ck_huffman *)calloc(8, sizeof(ck_huffman));
    uint8_t *buffer = (uint8_t *)malloc(ck_bits_chunk);
    if (tables == NULL || buffer == NULL) {
        free(tables);
        free(buffer);
        return 0;
    }
    int ok = 1;
    int dc_table[4], ac_table[4];
    for (int ci = 0; ci < cinfo->comps_in_scan && ok; ci++) {
        jpeg_component_info *component = cinfo->cur_comp_info[ci];
        if (component != &cinfo->comp_info[ci] || component->dc_tbl_no > 3 || component->ac_tbl_no > 3) {
            ok = 0;
            break;
        }
        dc_table[ci] = component->dc_tbl_no;
        ac_table[ci] = 4 + component->ac_tbl_no;
        ok = ck_huffman_build(&tables[dc_table[ci]], cinfo->dc_huff_tbl_ptrs[component->dc_tbl_no]) &&
             ck_huffman_build(&tables[ac_table[ci]], cinfo->ac_huff_tbl_ptrs[component->ac_tbl_no]);
        if (ok) ck_huffman_fast_ac(&tables[ac_table[ci]]);
    }
    // MCUs_per_row is set only when the decompressor starts the scan.
    long imcu_width = 8L * cinfo->max_h_samp_factor;
    ck_scan scan;
    memset(&scan, 0, sizeof scan);
    scan.cinfo = cinfo;
    scan.input = input;
    scan.crop = crop;
    scan.tables = tables;
    memcpy(scan.dc_table, dc_table, sizeof dc_table);
    memcpy(scan.ac_table, ac_table, sizeof ac_table);
    scan.mcus_per_row = ((long)cinfo->image_width + imcu_width - 1) / imcu_width;
    scan.restart = (long)cinfo->restart_interval;
    // Every crop block row's place, taken here, on one thread: the arrays
    // are whole in memory (libjpeg-turbo has no backing store), so the
    // bands write their rows through these without the memory manager.
    for (int ci = 0; ci < cinfo->num_components && ok; ci++) {
        // Every row of the array (those past the crop's last block row
        // too, which the encoder's access to the last iMCU row touches) is
        // defined here; the rows are not pre-zeroed, and only the crop's
        // blocks are ever read.
        JDIMENSION array_rows = crop->array_rows[ci];
        scan.rows[ci] = (JBLOCKROW *)calloc(array_rows + 1, sizeof(JBLOCKROW));
        if (scan.rows[ci] == NULL) {
            ok = 0;
            break;
        }
        for (JDIMENSION row = 0; row < array_rows; row++) {
            scan.rows[ci][row] =
                (*cinfo->mem->access_virt_barray)((j_common_ptr)cinfo, crop_arrays[ci], row, 1, TRUE)[0];
        }
    }
    long mcus_per_row = scan.mcus_per_row, restart = scan.restart;
    long first_mcu = crop->first_imcu_row * mcus_per_row;
    long end_mcu = (crop->last_imcu_row + 1) * mcus_per_row;
    // With restart intervals: the crop's rows in two bands, each decoded
    // from the interval it starts in, side by side, the rows above never
    // decoded. Without them the scan is decoded from its start, serially.
    ck_band bands[2];
    int band_count = 1;
    memset(bands, 0, sizeof bands);
    bands[0].scan = &scan;
    bands[0].offset = scan_offset;
    bands[0].store_from = first_mcu;
    bands[0].end_mcu = end_mcu;
    bands[0].ends_image = crop->ends_image;
    if (ok && restart > 0) {
        long rows = crop->last_imcu_row + 1 - crop->first_imcu_row;
        long split = rows >= 2 && crop->threads > 1 ? (crop->first_imcu_row + rows / 2) * mcus_per_row : end_mcu;
        long starts[2] = {first_mcu, split};
        band_count = split < end_mcu ? 2 : 1;
        uint64_t at = scan_offset;
        long passed = 0;
        for (int b = 0; b < band_count && ok; b++) {
            long interval = starts[b] / restart;
            if (interval > passed) {
                at = ck_find_restart(input, at, input->size, interval - passed, passed, buffer);
                if (at == 0) ok = 0;
                passed = interval;
            }
            bands[b].scan = &scan;
            bands[b].offset = at;
            bands[b].start_mcu = interval * restart;
            bands[b].store_from = starts[b];
            bands[b].end_mcu = b + 1 < band_count ? starts[b + 1] : end_mcu;
            bands[b].ends_image = b + 1 == band_count && crop->ends_image;
        }
    }
    // Without them, with two cores: the speculative decoder starts on the
    // second from a byte part way to the crop's last row (estimated from
    // the scan's length) while the first decodes from the scan's start.
    int path = restart > 0 ? ck_entropy_restart_markers : ck_entropy_serial;
    ck_speculation *speculation = NULL;
    long total_mcus = mcus_per_row * (long)cinfo->total_iMCU_rows;
    if (ok && restart == 0 && !crop->serial) {
        // Serially it decodes no faster than libjpeg-turbo: only with a
        // second thread on at least 256 KiB of data (estimated from the
        // input's size here), else libjpeg-turbo's.
        uint64_t rest = input->size > scan_offset ? input->size - scan_offset : 0;
        if (crop->threads < 2 || !crop->speculate ||
            rest * (uint64_t)end_mcu / (uint64_t)(total_mcus > 0 ? total_mcus : 1) < 256 * 1024) {
            ok = 0;
        }
    }
    if (ok && restart == 0 && crop->threads > 1 && crop->speculate) {
        uint64_t split = (uint64_t)-1, stuffed = 0;
        uint64_t scan_end = ck_scan_end(input, scan_offset, &split, &stuffed, 0, buffer);
        uint64_t needed = (scan_end - scan_offset) * (uint64_t)end_mcu / (uint64_t)(total_mcus > 0 ? total_mcus : 1);
        int permille = crop->split_permille > 0 ? crop->split_permille : 450;
        if (needed >= (crop->split_permille > 0 ? 64 : 256 * 1024)) {
            split = scan_offset + needed * (uint64_t)permille / 1000;
            (void)ck_scan_end(input, scan_offset, &split, &stuffed, 1, buffer);
            speculation = (ck_speculation *)calloc(1, sizeof(ck_speculation));
            if (speculation != NULL && split < scan_end) {
                speculation->scan = &scan;
                speculation->offset = split;
                speculation->first_bit = (split - scan_offset - stuffed) * 8;
                speculation->capacity = total_mcus;
                speculation->starts = (ck_mcu_start *)calloc((size_t)total_mcus + 1, sizeof(ck_mcu_start));
                // Its share of the data as compact blocks: at most about a
                // byte of them for each bit; past that it stops, and the
                // first band takes over where it did.
                uint64_t share = scan_offset + needed > split ? scan_offset + needed - split : 0;
                speculation->data_limit = (size_t)(share * 16 + (1u << 20));
                speculation->data = ck_map_store(speculation->data_limit);
                atomic_init(&speculation->published, 0);
                atomic_init(&speculation->stop_at, total_mcus);
            }
            if (speculation != NULL && (speculation->starts == NULL || speculation->data == NULL || split >= scan_end)) {
                free(speculation->starts);
                ck_unmap_store(speculation->data, speculation->data_limit);
                free(speculation);
                speculation = NULL;
            }
        }
    }
    if (ok) {
        pthread_t thread;
        int started = 0;
        if (speculation != NULL) {
            started = pthread_create(&thread, NULL, ck_speculate, speculation) == 0;
            if (started) bands[0].speculation = speculation;
        } else {
            started = band_count == 2 && pthread_create(&thread, NULL, ck_band_decode, &bands[1]) == 0;
        }
        ck_band_decode(&bands[0]);
        if (speculation == NULL && band_count == 2 && !started) ck_band_decode(&bands[1]);
        if (bands[0].speculation != NULL) {
            long synced = bands[0].ok ? bands[0].synced_mcu : -1;
            long shift = synced >= 0 ? synced - bands[0].synced_start : 0;
            long stop = synced >= 0 ? end_mcu - shift : 0;
            atomic_store_explicit(&speculation->stop_at, stop, memory_order_relaxed);
            pthread_join(thread, NULL);
            started = 0;
            // Damage after the point they met: refused, as serially.
            if (synced >= 0 && speculation->restarted_at >= bands[0].synced_start) ok = 0;
            if (ok && synced >= 0) {
                int offset[4];
                for (int ci = 0; ci < 4; ci++) {
                    offset[ci] = bands[0].synced_dc[ci] - speculation->starts[bands[0].synced_start].dc[ci];
                }
                long placed = speculation->count < stop ? speculation->count : stop;
                ck_place_speculated(&scan, speculation, bands[0].synced_start, placed, shift, offset);
                if (placed < stop && speculation->count >= speculation->capacity) {
                    ok = 0;  // no start recorded past its last MCU
                } else if (placed < stop) {
                    // It stopped early (its store full, or data it could not
                    // decode): the rest from where it stopped, here.
                    ck_band rest;
                    memset(&rest, 0, sizeof rest);
                    rest.scan = &scan;
                    rest.offset = speculation->offset;
                    rest.skip_bits = speculation->end.bit - speculation->first_bit;
                    for (int ci = 0; ci < 4; ci++) rest.initial_dc[ci] = speculation->end.dc[ci] + offset[ci];
                    rest.start_mcu = placed + shift;
                    rest.store_from = first_mcu;
                    rest.end_mcu = end_mcu;
                    rest.ends_image = crop->ends_image;
                    ck_band_decode(&rest);
                    ok = rest.ok;
                } else if (crop->ends_image) {
                    // The scan's end checked where the last MCU ended.
                    ok = speculation->count == stop && speculation->ended_at_marker;
                }
                if (ok) path = ck_entropy_speculative;
            }
        }
        if (started) pthread_join(thread, NULL);
        for (int b = 0; b < band_count; b++) ok = ok && bands[b].ok;
    }
    if (speculation != NULL) {
        free(speculation->starts);
        ck_unmap_store(speculation->data, speculation->data_limit);
        free(speculation);
    }
    for (int ci = 0; ci < 4; ci++) free(scan.rows[ci]);
    free(tables);
    free(buffer);
    return ok ? path : 0;
}
