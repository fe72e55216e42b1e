// Compression: libdeflate when its shared library is present (loaded at run
// time, so no -dev package is needed to build), zlib otherwise.
#include "CImagingShims.h"

#include <dlfcn.h>
#include <pthread.h>
#include <string.h>
#include <zlib.h>

// The few libdeflate functions CropKit calls, declared here as libdeflate.h
// declares them (libdeflate 1.x ABI).
struct libdeflate_compressor;
typedef struct libdeflate_compressor *(*ck_alloc_compressor_fn)(int level);
typedef size_t (*ck_zlib_compress_fn)(struct libdeflate_compressor *, const void *, size_t, void *, size_t);
typedef size_t (*ck_zlib_compress_bound_fn)(struct libdeflate_compressor *, size_t);
typedef void (*ck_free_compressor_fn)(struct libdeflate_compressor *);

static struct {
    ck_alloc_compressor_fn alloc;
    ck_zlib_compress_fn compress;
    ck_zlib_compress_bound_fn bound;
    ck_free_compressor_fn free;
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
        if (ck_libdeflate.alloc && ck_libdeflate.compress && ck_libdeflate.bound && ck_libdeflate.free) return;
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
    while (size > 0) {
        uInt n = size > (1u << 30) ? (1u << 30) : (uInt)size;
        crc = (uint32_t)crc32(crc, data, n);
        data += n;
        size -= n;
    }
    return crc;
}
