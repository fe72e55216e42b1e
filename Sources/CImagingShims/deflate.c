// Compression: libdeflate when its shared library is present (loaded at run
// time, so no -dev package is needed to build), zlib otherwise.
#include "CImagingShims.h"
#include "deflate_internal.h"
#include "loader_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

// The few libdeflate functions CropKit calls, declared here as libdeflate.h
// declares them (libdeflate 1.x ABI).
struct libdeflate_compressor;
typedef struct libdeflate_compressor *(*ck_alloc_compressor_fn)(int level);
typedef void (*ck_free_compressor_fn)(struct libdeflate_compressor *);
typedef uint32_t (*ck_crc32_fn)(uint32_t, const void *, size_t);
typedef uint32_t (*ck_adler32_fn)(uint32_t, const void *, size_t);
typedef size_t (*ck_deflate_compress_fn)(struct libdeflate_compressor *, const void *, size_t, void *, size_t);
typedef size_t (*ck_deflate_compress_bound_fn)(struct libdeflate_compressor *, size_t);

typedef struct {
    ck_alloc_compressor_fn alloc;
    ck_free_compressor_fn free;
    ck_crc32_fn crc32;
    ck_adler32_fn adler32;
    ck_deflate_compress_fn deflate_compress;
    ck_deflate_compress_bound_fn deflate_bound;
} ck_libdeflate_table;

static ck_libdeflate_table ck_libdeflate;

static const char *const ck_libdeflate_sonames[] = {
    "libdeflate.so.0", "libdeflate.so", "libdeflate.0.dylib", "libdeflate.dylib",
    "/opt/homebrew/lib/libdeflate.dylib", "/usr/local/lib/libdeflate.dylib"};

#define CK_DEFLATE_SYMBOL(field, name) {name, offsetof(ck_libdeflate_table, field), 1}
static const ck_symbol ck_libdeflate_symbols[] = {
    CK_DEFLATE_SYMBOL(alloc, "libdeflate_alloc_compressor"),
    CK_DEFLATE_SYMBOL(free, "libdeflate_free_compressor"),
    CK_DEFLATE_SYMBOL(crc32, "libdeflate_crc32"),
    CK_DEFLATE_SYMBOL(adler32, "libdeflate_adler32"),
    CK_DEFLATE_SYMBOL(deflate_compress, "libdeflate_deflate_compress"),
    CK_DEFLATE_SYMBOL(deflate_bound, "libdeflate_deflate_compress_bound"),
};

static ck_library ck_libdeflate_library = {
    ck_libdeflate_sonames, sizeof ck_libdeflate_sonames / sizeof ck_libdeflate_sonames[0],
    ck_libdeflate_symbols, sizeof ck_libdeflate_symbols / sizeof ck_libdeflate_symbols[0],
    &ck_libdeflate, sizeof ck_libdeflate, 0};

int ck_libdeflate_available(void) { return ck_library_load(&ck_libdeflate_library); }

long ck_zlib_uncompress(const uint8_t *in, size_t in_size, uint8_t *out, size_t out_capacity) {
    z_stream stream;
    memset(&stream, 0, sizeof stream);
    if (inflateInit(&stream) != Z_OK) return -1;
    stream.next_in = (Bytef *)in;
    stream.avail_in = (uInt)(in_size < (1u << 30) ? in_size : (1u << 30));
    stream.next_out = out;
    stream.avail_out = (uInt)(out_capacity < (1u << 30) ? out_capacity : (1u << 30));
    int result = inflate(&stream, Z_FINISH);
    long written = (long)stream.total_out;
    inflateEnd(&stream);
    return result == Z_STREAM_END ? written : -1;
}

size_t ck_zlib_compress_bound(size_t in_size) {
    return (size_t)deflateBound(NULL, (uLong)in_size) + 64;
}

size_t ck_zlib_compress(const uint8_t *in, size_t in_size, uint8_t *out, size_t out_capacity, int level) {
    z_stream stream;
    memset(&stream, 0, sizeof stream);
    if (deflateInit2(&stream, level, Z_DEFLATED, 15, 8, Z_DEFAULT_STRATEGY) != Z_OK) return 0;
    // zlib counts in uInt: feed and drain in pieces that fit.
    const size_t piece = (size_t)1 << 30;
    size_t consumed = 0;
    int result = Z_OK;
    stream.next_out = out;
    stream.avail_out = (uInt)(out_capacity < piece ? out_capacity : piece);
    size_t out_given = stream.avail_out;
    while (result == Z_OK) {
        if (stream.avail_in == 0 && consumed < in_size) {
            size_t n = in_size - consumed < piece ? in_size - consumed : piece;
            stream.next_in = (Bytef *)(in + consumed);
            stream.avail_in = (uInt)n;
            consumed += n;
        }
        if (stream.avail_out == 0) {
            size_t used = out_given;
            if (used >= out_capacity) break;
            size_t more = out_capacity - used < piece ? out_capacity - used : piece;
            stream.avail_out = (uInt)more;
            out_given += more;
        }
        result = deflate(&stream, consumed == in_size && stream.avail_in == 0 ? Z_FINISH : Z_NO_FLUSH);
    }
    size_t written = stream.total_out;
    deflateEnd(&stream);
    return result == Z_STREAM_END ? written : 0;
}

uint32_t ck_crc32(uint32_t crc, const uint8_t *data, size_t size) {
    // libdeflate's CRC-32 uses carry-less multiplication where the processor
    // has it: several times zlib's speed, the same value. A short run (a
    // chunk header, a stand-in file) does not load libdeflate for that.
    int use_libdeflate = size >= 4096
        ? ck_libdeflate_available()
        : __atomic_load_n(&ck_libdeflate_library.state, __ATOMIC_ACQUIRE) > 0;
    if (use_libdeflate && ck_libdeflate.crc32 != NULL) return ck_libdeflate.crc32(crc, data, size);
    while (size > 0) {
        uInt n = size > (1u << 30) ? (1u << 30) : (uInt)size;
        crc = (uint32_t)crc32(crc, data, n);
        data += n;
        size -= n;
    }
    return crc;
}

void ck_free(void *pointer) { free(pointer); }

struct libdeflate_compressor *ck_deflate_alloc(int level) {
    if (!ck_libdeflate_available()) return NULL;
    return ck_libdeflate.alloc(level);
}

void ck_deflate_free(struct libdeflate_compressor *compressor) {
    if (compressor != NULL) ck_libdeflate.free(compressor);
}

size_t ck_deflate_bound(struct libdeflate_compressor *compressor, size_t size) {
    return ck_libdeflate.deflate_bound(compressor, size);
}

size_t ck_deflate_compress(struct libdeflate_compressor *compressor, const uint8_t *in, size_t in_size, uint8_t *out,
                           size_t out_capacity) {
    return ck_libdeflate.deflate_compress(compressor, in, in_size, out, out_capacity);
}

static size_t ck_unfinalize(uint8_t *data, size_t size, int *unused);

// Reading a DEFLATE stream's bits (least significant first), bounds-checked.
typedef struct {
    const uint8_t *data;
    size_t size;
    uint64_t position;  // in bits
} ck_bit_reader;

static int ck_bits(ck_bit_reader *in, int count, unsigned *value) {
    if (in->position + (uint64_t)count > (uint64_t)in->size * 8) return 0;
    unsigned result = 0;
    for (int i = 0; i < count; i++, in->position++)
        result |= (unsigned)((in->data[in->position >> 3] >> (in->position & 7)) & 1) << i;
    *value = result;
    return 1;
}

// A canonical Huffman code, decoded a bit at a time (as zlib's puff.c does).
typedef struct {
    short count[16];    // codes of each length
    short symbol[320];  // symbols in code order
} ck_code;

static int ck_code_build(ck_code *code, const uint8_t *lengths, int n) {
    memset(code->count, 0, sizeof code->count);
    for (int i = 0; i < n; i++) code->count[lengths[i]] += 1;
    code->count[0] = 0;
    int left = 1;
    for (int length = 1; length < 16; length++) {
        left = (left << 1) - code->count[length];
        if (left < 0) return 0;
    }
    short offsets[16];
    offsets[1] = 0;
    for (int length = 1; length < 15; length++) offsets[length + 1] = (short)(offsets[length] + code->count[length]);
    for (int i = 0; i < n; i++)
        if (lengths[i] != 0) code->symbol[offsets[lengths[i]]++] = (short)i;
    return 1;
}

static int ck_code_decode(ck_bit_reader *in, const ck_code *code) {
    int value = 0, first = 0, index = 0;
    for (int length = 1; length < 16; length++) {
        unsigned bit;
        if (!ck_bits(in, 1, &bit)) return -1;
        value |= (int)bit;
        int count = code->count[length];
        if (value - count < first) return code->symbol[index + (value - first)];
        index += count;
        first = (first + count) << 1;
        value <<= 1;
    }
    return -1;
}

// For a raw DEFLATE stream that is one final block (its first bit set):
// sets `unused` to the padding bits in its last byte and returns 1, or 0 when
// that cannot be told without decoding the block (a fixed-code block, whose
// end-of-block code is seven zero bits, or an end that fits several
// paddings). For a dynamic block the header gives the end-of-block code, and
// the padding is the one count of trailing zero bits (0-7) that leaves that
// code just before it.
static int ck_single_block_padding(const uint8_t *data, size_t size, int *unused) {
    ck_bit_reader in = {.data = data, .size = size, .position = 0};
    unsigned final, type;
    if (!ck_bits(&in, 1, &final) || !ck_bits(&in, 2, &type) || final != 1) return 0;
    if (type == 0) {
        // Stored: byte-aligned header, LEN, NLEN, LEN bytes; ends on a byte.
        if (size < 5) return 0;
        unsigned length = (unsigned)data[1] | (unsigned)data[2] << 8;
        unsigned check = (unsigned)data[3] | (unsigned)data[4] << 8;
        if ((length ^ 0xFFFF) != check || 5 + (size_t)length != size) return 0;
        *unused = 0;
        return 1;
    }
    if (type != 2) return 0;
    unsigned literals, distances, codes;
    if (!ck_bits(&in, 5, &literals) || !ck_bits(&in, 5, &distances) || !ck_bits(&in, 4, &codes)) return 0;
    literals += 257, distances += 1, codes += 4;
    if (literals > 286 || distances > 30) return 0;
    static const uint8_t order[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};
    uint8_t lengths[320] = {0};
    for (unsigned i = 0; i < codes; i++) {
        unsigned length;
        if (!ck_bits(&in, 3, &length)) return 0;
        lengths[order[i]] = (uint8_t)length;
    }
    ck_code code;
    if (!ck_code_build(&code, lengths, 19)) return 0;
    unsigned total = literals + distances, i = 0;
    memset(lengths, 0, sizeof lengths);
    while (i < total) {
        int symbol = ck_code_decode(&in, &code);
        if (symbol < 0) return 0;
        if (symbol < 16) {
            lengths[i++] = (uint8_t)symbol;
            continue;
        }
        unsigned repeat, extra;
        uint8_t value = 0;
        if (symbol == 16) {
            if (i == 0 || !ck_bits(&in, 2, &extra)) return 0;
            value = lengths[i - 1];
            repeat = 3 + extra;
        } else if (symbol == 17) {
            if (!ck_bits(&in, 3, &extra)) return 0;
            repeat = 3 + extra;
        } else {
            if (!ck_bits(&in, 7, &extra)) return 0;
            repeat = 11 + extra;
        }
        if (i + repeat > total) return 0;
        while (repeat-- > 0) lengths[i++] = value;
    }
    // The end-of-block code: canonical, so its value is the first code of its
    // length plus the symbols of that length before it.
    int length = lengths[256];
    if (length == 0) return 0;
    int per_length[16] = {0};
    for (unsigned k = 0; k < literals; k++) per_length[lengths[k]] += 1;
    per_length[0] = 0;
    int next = 0;
    for (int l = 1; l <= length; l++) next = (next + per_length[l - 1]) << 1;
    int value = next;
    for (unsigned k = 0; k < 256; k++)
        if (lengths[k] == length) value += 1;
    uint64_t bits = (uint64_t)size * 8;
    int found = -1;
    for (int padding = 0; padding < 8; padding++) {
        uint64_t end = bits - (uint64_t)padding;
        if (end < in.position + (uint64_t)length) break;
        // The padding bits must be zero.
        if (padding > 0 && (data[size - 1] >> (8 - padding)) != 0) continue;
        int match = 1;
        for (int k = 0; k < length && match; k++) {
            uint64_t at = end - (uint64_t)length + (uint64_t)k;
            int bit = (data[at >> 3] >> (at & 7)) & 1;
            // Huffman codes go into the stream most significant bit first.
            if (bit != ((value >> (length - 1 - k)) & 1)) match = 0;
        }
        if (!match) continue;
        if (found >= 0) return 0;  // two paddings fit: cannot tell
        found = padding;
    }
    if (found < 0) return 0;
    *unused = found;
    return 1;
}

size_t ck_deflate_make_continuable(uint8_t *data, size_t size) {
    // Clear the final-block bit and end on a byte boundary with an empty
    // stored block (3 zero header bits, padding, LEN 0000, NLEN FFFF). The
    // header fits in the unused bits if there are three; else it spills into
    // one more zero byte. A stream that is one block has its final-block bit
    // first, and its padding can often be told from its header alone; other
    // streams are walked with zlib.
    int unused = 0;
    size_t kept;
    if (size > 0 && (data[0] & 1) && ck_single_block_padding(data, size, &unused)) {
        data[0] &= (uint8_t)~1u;
        kept = size;
    } else {
        kept = ck_unfinalize(data, size, &unused);
    }
    if (kept == 0) return 0;
    uint8_t *tail = data + kept;
    size_t extra = 0;
    if (unused < 3) tail[extra++] = 0;
    tail[extra++] = 0x00;
    tail[extra++] = 0x00;
    tail[extra++] = 0xFF;
    tail[extra++] = 0xFF;
    return kept + extra;
}

/// Clears the final-block bit of the raw DEFLATE stream in `data` and says
/// where that last block ends: returns the bytes through its last (partly)
/// used byte and sets `unused` to that byte's unused high bits. 0 on failure.
static size_t ck_unfinalize(uint8_t *data, size_t size, int *unused) {
    z_stream stream;
    memset(&stream, 0, sizeof stream);
    if (inflateInit2(&stream, -15) != Z_OK) return 0;
    static const size_t junk_size = 1 << 16;
    uint8_t *junk = malloc(junk_size);
    if (junk == NULL) {
        inflateEnd(&stream);
        return 0;
    }
    stream.next_in = data;
    stream.avail_in = (uInt)size;
    // Where the current block's final bit lives: bit 0 of byte 0 at first.
    size_t header_byte = 0;
    unsigned header_mask = 1;
    size_t kept = 0;
    for (;;) {
        stream.next_out = junk;
        stream.avail_out = (uInt)junk_size;
        int result = inflate(&stream, Z_BLOCK);
        if (result != Z_OK && result != Z_STREAM_END && result != Z_BUF_ERROR) break;
        if (stream.data_type & 128) {
            int bits = stream.data_type & 7;
            size_t used = (size_t)(stream.next_in - data);
            if (stream.data_type & 64) {
                // The end of the final block (zlib reports it as a boundary
                // with the last-block flag set): this is where the stream ends.
                kept = used;
                *unused = bits;
                break;
            }
            // Before the next block: its header starts at the next unread
            // bit, the first bit being the final-block flag.
            if (bits != 0) {
                header_byte = used - 1;
                header_mask = 0x100u >> bits;
            } else {
                header_byte = used;
                header_mask = 1;
            }
        }
        if (result == Z_STREAM_END || (result == Z_BUF_ERROR && stream.avail_in == 0)) break;
    }
    inflateEnd(&stream);
    free(junk);
    if (kept == 0 || header_byte >= size) return 0;
    data[header_byte] &= (uint8_t)~header_mask;
    // The padding above the last block's end must read as zeros: it now holds
    // the next (stored) block's header.
    data[kept - 1] &= (uint8_t)(0xFFu >> *unused);
    return kept;
}

uint32_t ck_adler32(const uint8_t *data, size_t size) { return ck_adler32_update(1, data, size); }

uint32_t ck_adler32_update(uint32_t start, const uint8_t *data, size_t size) {
    if (ck_libdeflate_available()) return ck_libdeflate.adler32(start, data, size);
    uLong adler = start;
    while (size > 0) {
        uInt n = size > (1u << 30) ? (1u << 30) : (uInt)size;
        adler = adler32(adler, data, n);
        data += n;
        size -= n;
    }
    return (uint32_t)adler;
}

int ck_deflate_continuable_selftest(const uint8_t *data, size_t size, int *fast) {
    *fast = 0;
    if (!ck_libdeflate_available()) return -1;
    struct libdeflate_compressor *compressor = ck_deflate_alloc(1);
    if (compressor == NULL) return -1;
    size_t bound = ck_deflate_bound(compressor, size);
    uint8_t *a = malloc(bound + 8), *b = malloc(bound + 8);
    int result = -1;
    if (a != NULL && b != NULL) {
        size_t n = ck_deflate_compress(compressor, data, size, a, bound);
        memcpy(b, a, n);
        int unused = 0;
        if (n > 0 && (a[0] & 1) && ck_single_block_padding(a, n, &unused)) {
            *fast = 1;
            int walked = 0;
            size_t kept = ck_unfinalize(b, n, &walked);
            result = kept == n && walked == unused ? 1 : 0;
        } else {
            result = 1;
        }
    }
    free(a);
    free(b);
    ck_deflate_free(compressor);
    return result;
}
