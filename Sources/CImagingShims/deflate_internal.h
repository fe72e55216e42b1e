// libdeflate's compressor as the C layer uses it internally (deflate.c);
// not part of the interface Swift sees.
#ifndef CROPKIT_DEFLATE_INTERNAL_H
#define CROPKIT_DEFLATE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

struct libdeflate_compressor;

/// A libdeflate compressor at `level`; NULL when libdeflate is missing or out
/// of memory.
struct libdeflate_compressor *ck_deflate_alloc(int level);
void ck_deflate_free(struct libdeflate_compressor *compressor);
/// libdeflate_deflate_compress_bound.
size_t ck_deflate_bound(struct libdeflate_compressor *compressor, size_t size);
/// libdeflate_deflate_compress (raw DEFLATE): the bytes written, 0 when `out`
/// is too small.
size_t ck_deflate_compress(struct libdeflate_compressor *compressor, const uint8_t *in, size_t in_size, uint8_t *out,
                           size_t out_capacity);
/// Makes the complete raw DEFLATE stream in `data` continuable: clears its
/// final-block bit (found with zlib's inflate(Z_BLOCK), as zlib's gzjoin does)
/// and appends an empty stored block (00 00 FF FF, as Z_SYNC_FLUSH writes),
/// which needs up to 5 bytes of room behind `size`. Returns the new size, 0
/// when the stream cannot be parsed.
size_t ck_deflate_make_continuable(uint8_t *data, size_t size);

#endif
