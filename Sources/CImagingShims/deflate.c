// Compression: libdeflate when its shared library is present (loaded at run
// time, so no -dev package is needed to build), zlib otherwise.
#include "CImagingShims.h"
#include "deflate_internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

// The few libdeflate functions CropKit calls, declared here as libdeflate.h
// declares them (libdeflate 1.x ABI).
struct libdeflate_compressor;
typedef struct libdeflate_compressor *(*ck_alloc_compressor_fn)(int level);
typedef size_t (*ck_zlib_compress_fn)(struct libdeflate_compressor *, const void *, size_t, void *, size_t);
typedef size_t (*ck_zlib_compress_bound_fn)(struct libdeflate_compressor *, size_t);
typedef void (*ck_free_compressor_fn)(struct libdeflate_compressor *);
typedef uint32_t (*ck_crc32_fn)(uint32_t, const void *, size_t);
typedef uint32_t (*ck_adler32_fn)(uint32_t, const void *, size_t);
typedef size_t (*ck_deflate_compress_fn)(struct libdeflate_compressor *, const void *, size_t, void *, size_t);
typedef size_t (*ck_deflate_compress_bound_fn)(struct libdeflate_compressor *, size_t);

static struct {
    ck_alloc_compressor_fn alloc;
    ck_zlib_compress_fn compress;
    ck_zlib_compress_bound_fn bound;
    ck_free_compressor_fn free;
    ck_crc32_fn crc32;
    ck_adler32_fn adler32;
    ck_deflate_compress_fn deflate_compress;
    ck_deflate_compress_bound_fn deflate_bound;
} ck_libdeflate;

static pthread_once_t ck_libdeflate_once = PTHREAD_ONCE_INIT;

static void ck_libdeflate_load(void) {
    const char *names[] = {"libdeflate.so.0", "libdeflate.so", "libdeflate.0.dylib", "libdeflate.dylib",
                           "/opt/homebrew/lib/libdeflate.dylib", "/usr/local/lib/libdeflate.dylib"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        void *handle = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (handle == NULL) continue;
        ck_libdeflate.alloc = (ck_alloc_compressor_fn)dlsym(handle, "libdeflate_alloc_compressor");
        ck_libdeflate.compress = (ck_zlib_compress_fn)dlsym(handle, "libdeflate_zlib_compress");
        ck_libdeflate.bound = (ck_zlib_compress_bound_fn)dlsym(handle, "libdeflate_zlib_compress_bound");
        ck_libdeflate.free = (ck_free_compressor_fn)dlsym(handle, "libdeflate_free_compressor");
        ck_libdeflate.crc32 = (ck_crc32_fn)dlsym(handle, "libdeflate_crc32");
        ck_libdeflate.adler32 = (ck_adler32_fn)dlsym(handle, "libdeflate_adler32");
        ck_libdeflate.deflate_compress = (ck_deflate_compress_fn)dlsym(handle, "libdeflate_deflate_compress");
        ck_libdeflate.deflate_bound = (ck_deflate_compress_bound_fn)dlsym(handle, "libdeflate_deflate_compress_bound");
        if (ck_libdeflate.alloc && ck_libdeflate.compress && ck_libdeflate.bound && ck_libdeflate.free &&
            ck_libdeflate.crc32 && ck_libdeflate.adler32 && ck_libdeflate.deflate_compress && ck_libdeflate.deflate_bound)
            return;
        ck_libdeflate.alloc = NULL;
        dlclose(handle);
    }
}

int ck_libdeflate_available(void) {
    pthread_once(&ck_libdeflate_once, ck_libdeflate_load);
    return ck_libdeflate.alloc != NULL;
}

size_t ck_libdeflate_zlib_compress_bound(size_t in_size, int level) {
    if (!ck_libdeflate_available()) return 0;
    struct libdeflate_compressor *compressor = ck_libdeflate.alloc(level);
    if (compressor == NULL) return 0;
    size_t bound = ck_libdeflate.bound(compressor, in_size);
    ck_libdeflate.free(compressor);
    return bound;
}

size_t ck_libdeflate_zlib_compress(const uint8_t *in, size_t in_size, uint8_t *out, size_t out_capacity, int level) {
    if (!ck_libdeflate_available()) return 0;
    struct libdeflate_compressor *compressor = ck_libdeflate.alloc(level);
    if (compressor == NULL) return 0;
    size_t written = ck_libdeflate.compress(compressor, in, in_size, out, out_capacity);
    ck_libdeflate.free(compressor);
    return written;
}

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
    // has it: several times zlib's speed, the same value.
    if (ck_libdeflate_available() && ck_libdeflate.crc32 != NULL) return ck_libdeflate.crc32(crc, data, size);
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

size_t ck_deflate_make_continuable(uint8_t *data, size_t size) {
    // Clear the final-block bit and end on a byte boundary with an empty
    // stored block (3 zero header bits, padding, LEN 0000, NLEN FFFF). The
    // header fits in the unused bits if there are three; else it spills into
    // one more zero byte.
    int unused = 0;
    size_t kept = ck_unfinalize(data, size, &unused);
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

uint32_t ck_adler32(const uint8_t *data, size_t size) {
    if (ck_libdeflate_available()) return ck_libdeflate.adler32(1, data, size);
    uLong adler = adler32(0L, Z_NULL, 0);
    while (size > 0) {
        uInt n = size > (1u << 30) ? (1u << 30) : (uInt)size;
        adler = adler32(adler, data, n);
        data += n;
        size -= n;
    }
    return (uint32_t)adler;
}
