// CropKit's C layer: the only place setjmp/longjmp and libpng/zlib macros
// live. Each function does one whole operation and returns a status code; no
// longjmp ever crosses into Swift.
#ifndef CROPKIT_IMAGING_SHIMS_H
#define CROPKIT_IMAGING_SHIMS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
    CK_STATUS_OK = 0,
    CK_STATUS_CANNOT_OPEN = 1,
    CK_STATUS_CORRUPT = 2,
    CK_STATUS_OUT_OF_MEMORY = 3,
    CK_STATUS_MISMATCH = 4,
    CK_STATUS_LIMIT = 5,
};

/// A PNG image data stream being compressed while its rows are decoded
/// (see ck_stream_start).
typedef struct ck_stream ck_stream;

/// The bytes of one opened image: read with pread(2) from `descriptor` when
/// `bytes` is NULL, else from `bytes`. `size` is the file's size when it was
/// opened; nothing past it is read.
typedef struct {
    int descriptor;
    const uint8_t *bytes;
    uint64_t size;
} ck_input;

/// Reads up to `count` bytes at `offset` (pread, retried on EINTR and short
/// reads): the bytes read (fewer only at the end), or -1 on a read error.
long ck_input_read(const ck_input *input, uint64_t offset, uint8_t *buffer, size_t count);

/// Told by a decoder that rows [0, rows) of its output are final.
typedef void (*ck_rows_ready_fn)(void *context, uint32_t rows);

/// ck_stream_rows_ready with the signature of ck_rows_ready_fn, so a
/// decoder can feed a ck_stream directly.
void ck_stream_rows_ready_callback(void *stream, uint32_t rows);

/// One crop-aware PNG read: inputs first, results after.
typedef struct {
    /// The rect to keep, in the stored grid; must lie inside the image.
    uint32_t crop_x, crop_y, crop_width, crop_height;
    /// What the caller's own scan of the file found; the read fails with
    /// CK_STATUS_MISMATCH when libpng disagrees.
    uint32_t width, height;
    int bit_depth, color_type, interlaced;
    /// Refused above these (png_set_user_limits).
    uint32_t max_width, max_height;
    /// Largest interlace row store the read may allocate.
    size_t max_allocation;
    /// Receives crop_height rows of crop_width pixels: samples unpacked to one
    /// byte each below 8 bits, 16-bit samples big-endian.
    uint8_t *pixels;
    size_t pixels_size;
    /// When not NULL, called with `rows_context` as soon as each crop row
    /// is final (the decoder feeds an encoder this way).
    ck_rows_ready_fn rows_ready;
    void *rows_context;
    /// Results.
    int warnings;
    uint32_t rows_decoded;
    /// What became of the zlib stream's Adler-32 (CK_CHECKSUM_...).
    int checksum;
    /// Bytes of image data past the last row that were never inflated
    /// (CK_CHECKSUM_EXTRA_DATA), or that follow the checksum.
    uint64_t unread_bytes;
    char message[512];
} ck_png_read_request;

enum {
    /// The crop ends above the image's last row: the stream's end, and its
    /// checksum, were never reached.
    CK_CHECKSUM_NOT_REACHED = 0,
    /// The stream ended after the last row and its Adler-32 matched.
    CK_CHECKSUM_VERIFIED = 1,
    /// Compressed data goes on after the last row; it was not inflated, so
    /// the checksum (which covers it) was not checked.
    CK_CHECKSUM_EXTRA_DATA = 2,
};

/// Reads the crop of the PNG in `input` (libpng: png_set_read_fn,
/// png_read_info, png_read_row), through a 1 MiB buffer.
/// Rows above the crop are decoded and dropped; for non-interlaced files
/// decoding stops after the crop's last row. Ancillary chunks are skipped
/// unread by libpng (the caller copies the ones it keeps). Chunk CRCs and the
/// Adler-32 are not checked here: the caller must have checked the CRCs.
int ck_png_read_crop(const ck_input *input, ck_png_read_request *request);

/// Whether ISA-L's shared library (libisal.so.2) could be loaded; loads it
/// on the first call.
int ck_isal_available(void);

/// The dlopen loader's own check, for tests: opens `soname` as the one
/// loader opens every run-time library, with `required` a function it must
/// have and `optional` one it may lack. -1: absent or without `required`
/// (nothing left pointing into it); 1: loaded without `optional`; 3: with it.
int ck_library_probe(const char *soname, const char *required, const char *optional);

/// Where one IDAT chunk's data lies in the file.
typedef struct {
    uint64_t offset;
    uint32_t length;
} ck_data_span;

/// ck_png_read_crop without libpng: the image data (the IDAT chunks'
/// `spans`, in order) inflated by ISA-L and unfiltered here, for
/// non-interlaced images of 8 or 16 bits a sample. Rows below the crop are
/// never inflated. Neither the chunk CRCs nor the Adler-32 are checked here.
/// CK_STATUS_CANNOT_OPEN without ISA-L, CK_STATUS_MISMATCH for an image it
/// does not take.
int ck_png_read_crop_isal(const ck_input *input, const ck_data_span *spans, size_t span_count,
                          ck_png_read_request *request);

/// The JPEG a crop reads, as the caller's own marker scan found it, and
/// the rect and limits of the read: what a decode and a DCT-domain crop
/// both take.
typedef struct {
    /// The rect to keep, in the stored grid; must lie inside the image (for
    /// a DCT-domain crop, x and y on the iMCU grid).
    uint32_t crop_x, crop_y, crop_width, crop_height;
    /// The size and component count the caller's own marker scan found.
    uint32_t width, height;
    int components;
    /// Refuse progressive files with more scans than this.
    int max_scans;
    /// libjpeg's max_memory_to_use, in bytes.
    long max_memory;
    /// Whether libjpeg's warnings (corrupt data it can step over) are
    /// tolerated; otherwise the first one ends the read as an error.
    int lenient;
} ck_jpeg_crop_params;

/// One crop-aware JPEG read (libjpeg-turbo): inputs first, results after.
typedef struct {
    ck_jpeg_crop_params source;
    /// Whether chroma is upsampled by plain replication (no "fancy"
    /// interpolation): each pixel then depends on its own blocks alone, so
    /// a DCT-domain crop decodes to exactly the source's pixels at the rect.
    int plain_upsampling;
    /// Decode at 1/scale_denom of the size through libjpeg's DCT scaling
    /// (1, 2, 4 or 8; 0 means 1). The crop rect is then in the scaled grid,
    /// whose size is the image's divided by scale_denom, rounded up.
    unsigned int scale_denom;
    /// Receives crop_height rows of crop_width pixels: 1 byte a pixel for a
    /// grayscale source, 3 (RGB) for every other.
    uint8_t *pixels;
    size_t pixels_size;
    /// When not NULL, called with `rows_context` as soon as each crop row
    /// is final (the decoder feeds an encoder this way).
    ck_rows_ready_fn rows_ready;
    void *rows_context;
    /// Results: channels written a pixel (1 gray, 3 RGB), warnings seen.
    int out_channels;
    int warnings;
    int scans;
    char message[512];
} ck_jpeg_read_request;

/// Reads the crop of the JPEG in `input`: jpeg_crop_scanline for the columns
/// (widened by a margin so the chroma upsampler sees the same neighbours as
/// in a full decode, then cut exactly), jpeg_skip_scanlines for the rows
/// above, and no decoding past the crop's last row. Output is RGB (YCbCr, RGB
/// and CMYK/YCCK sources; CMYK is converted as Adobe's inverted CMYK:
/// R = C * K / 255 rounded) or gray. Returns a status; on error `message`
/// says why.
int ck_jpeg_read_crop(const ck_input *input, ck_jpeg_read_request *request);

/// Takes `count` bytes of output; returns 0 when they were written, else
/// nonzero (the write ends as an error).
typedef int (*ck_write_fn)(void *context, const uint8_t *bytes, size_t count);

/// How a JPEG is coded, for ck_jpeg_encode and ck_jpeg_transcode_crop.
typedef struct {
    /// When `quant_table_count` > 0: the tables (64 values each, natural
    /// order) and each component's table; otherwise libjpeg's tables at
    /// `quality` (1 to 100).
    uint16_t quant_tables[4][64];
    int quant_table_count;
    int component_quant[4];
    int quality;
    /// Each component's sampling factors (ck_jpeg_encode; 0 means 1).
    int h_samp[4], v_samp[4];
    int progressive;
    int arithmetic;
    /// Optimized Huffman tables (ignored with arithmetic coding).
    int optimize;
    /// Restart interval in MCUs (0: none).
    int restart_interval;
} ck_jpeg_coding;

/// One JPEG encode of 8-bit pixels (ck_jpeg_encode).
typedef struct {
    uint32_t width, height;
    /// 1 (gray) or 3 (RGB, written as YCbCr).
    int components;
    /// `height` rows of `width * components` bytes.
    const uint8_t *pixels;
    /// When not NULL, called before row y is read with y + 1: returns 0
    /// once that many rows of `pixels` are final (a decoder on another
    /// thread is filling them), nonzero when they never will be.
    int (*wait_rows)(void *context, uint32_t rows);
    void *wait_context;
    /// When not 0, `pixels` holds a ring of this many rows: row y is read at
    /// y % ring_rows. A row is consumed once the call for the next row's
    /// wait_rows is made (libjpeg copies each row as it takes it).
    uint32_t ring_rows;
    ck_jpeg_coding coding;
    /// Whether libjpeg writes its own JFIF APP0 marker.
    int write_jfif;
    /// Whole segments (FF, marker, 2 length bytes, body) written after SOI.
    const uint8_t *markers;
    size_t markers_size;
    ck_write_fn write;
    void *write_context;
    int warnings;
    char message[512];
} ck_jpeg_encode_request;

/// Encodes the pixels as a JPEG through libjpeg-turbo (islow DCT), to
/// `write`. Returns a status; on error `message` says why.
int ck_jpeg_encode(ck_jpeg_encode_request *request);

/// One lossless (DCT-domain) crop of a JPEG (ck_jpeg_transcode_crop).
typedef struct {
    ck_jpeg_crop_params source;
    /// Whether a right or bottom edge block that holds samples beyond the
    /// rect (inside the photo) is re-encoded with the rect's edge samples
    /// repeated over them; otherwise such blocks are refused
    /// (CK_STATUS_MISMATCH) and nothing is written. 2: copied as they are
    /// (only for tests that show what the padding leaks).
    int fix_edges;
    /// Whole segments written after SOI (the cleaned metadata).
    const uint8_t *markers;
    size_t markers_size;
    ck_write_fn write;
    void *write_context;
    /// 0: CropKit's own decoder and encoder where they apply; 1: decode and
    /// encode with libjpeg-turbo only (the control the tests compare
    /// CropKit's with); 2: CropKit's decoder without speculation, on files
    /// without restart markers too (serial: the fuzz target's reference);
    /// 3: with speculation wherever it can, its second thread starting at
    /// `split_permille` thousandths of the data the crop needs.
    int entropy_mode;
    int split_permille;
    /// Result: which entropy decoder ran: 0 libjpeg-turbo's; CropKit's: 2
    /// by restart intervals (from the marker before the crop's first row,
    /// its rows in two bands side by side), 3 speculatively on two threads
    /// (the second's MCUs used from where the two agreed), 4 serially from
    /// the scan's start.
    int entropy;
    /// Result: which Huffman encoder wrote the scan: 0 libjpeg-turbo's, 1
    /// CropKit's (two bands side by side, the same bytes).
    int encoder;
    /// Results: blocks re-encoded at the edges, whether the entropy decode
    /// stopped after the crop's last iMCU row, the source's coding.
    long reencoded_blocks;
    int stopped_early;
    int progressive;
    int arithmetic;
    int warnings;
    int scans;
    char message[512];
} ck_jpeg_transcode_request;

/// Copies the quantized DCT coefficients of the blocks inside the rect into
/// a new JPEG of the rect's size with the source's quantization tables,
/// sampling and coding (progressive, arithmetic, restart interval; Huffman
/// tables optimized): no block inside the rect is re-encoded. A sequential
/// single-scan source is entropy-decoded only down to the crop's last iMCU
/// row. Returns a status; on error `message` says why.
int ck_jpeg_transcode_crop(const ck_input *input, ck_jpeg_transcode_request *request);

/// zlib's compress at `level` into `out` (deflateInit2, deflate); returns
/// the bytes written, or 0 when `out` is too small or zlib fails.
size_t ck_zlib_compress(const uint8_t *in, size_t in_size, uint8_t *out, size_t out_capacity, int level);

/// zlib's uncompress of a zlib stream into `out`: the bytes written, or -1
/// when the data is invalid or does not fit in `out_capacity`.
long ck_zlib_uncompress(const uint8_t *in, size_t in_size, uint8_t *out, size_t out_capacity);

/// zlib's deflateBound for `in_size` bytes.
size_t ck_zlib_compress_bound(size_t in_size);

/// Whether libdeflate's shared library could be loaded (dlopen of
/// libdeflate.so.0 and its usual names); loads it on the first call.
int ck_libdeflate_available(void);

/// Receives the PNG file's IDAT chunks in order, each whole (length, type,
/// data, CRC); returns 0 on success. Called by one thread at a time.
typedef int (*ck_write_fn)(void *context, const uint8_t *data, size_t size);

/// What ck_stream_start compresses and where it goes.
typedef struct {
    /// The image's rows, top-down, `row_bytes` each (8- or 16-bit samples, or
    /// packed sub-byte rows with `filter` 0). Rows must not change once
    /// reported ready.
    const uint8_t *pixels;
    size_t row_bytes;
    uint32_t height;
    /// Bytes a pixel (at least 1): the distance the Sub, Average and Paeth
    /// filters look left.
    size_t bpp;
    /// 1: each row gets the filter ck_png_filter_row picks; 0: every row None.
    int filter;
    /// libdeflate level (1-12), or 0 for each band's own
    /// (ck_stream_automatic_level).
    int level;
    /// Threads compressing, the caller's included (it joins in
    /// ck_stream_finish).
    int threads;
    /// Rows a band: each band is compressed on its own, without the previous
    /// band's window, and written as one IDAT chunk.
    uint32_t band_rows;
    ck_write_fn write;
    void *context;
    /// When not 0, `pixels` is the stream's to discard as it goes: the pages
    /// of rows every remaining band is past are given back to the system
    /// (madvise), and ck_stream_rows_ready holds the decoder (which helps
    /// compress meanwhile) while more than a window of rows waits, so a
    /// crop of any height stays resident in a few bands' memory. The rows
    /// read as zeros afterwards.
    int release;
} ck_stream_config;

/// Bytes of rows a releasing stream lets wait at most (more when the
/// threads need one band each): the window of ck_stream_config.release.
#define CK_STREAM_WINDOW_BYTES ((size_t)24 << 20)

/// The band limits PNGEncoder uses by default: bytes of filtered rows.
#define CK_STREAM_MIN_BAND_BYTES 524288
#define CK_STREAM_MAX_BAND_BYTES 2097152

/// Rows a band for `height` rows of `row_bytes` bytes compressed on
/// `threads` threads: about sixteen bands a thread (the band left to
/// compress after the decode ends is then short), at least `min_bytes` of
/// filtered rows; on one thread as few bands as fit; never over `max_bytes`
/// (but at least one row, at most `height`).
uint32_t ck_stream_band_rows(size_t row_bytes, uint32_t height, int threads, size_t min_bytes, size_t max_bytes);

/// Starts compressing `config`'s image as one zlib stream, in bands of rows,
/// on threads - 1 worker threads, as rows are reported with
/// ck_stream_rows_ready. Bands are filtered into their own buffers (`pixels`
/// is only read), compressed by libdeflate, made continuable (their final-
/// block bit cleared, then an empty stored block, as Z_SYNC_FLUSH writes),
/// and written in order. The final-block bit is found with zlib's
/// inflate(Z_BLOCK), as zlib's gzjoin does, except in a band the automatic
/// level finds noisy: it is compressed as streams of at most 64 KiB of input,
/// each a single block whose end its header tells (see
/// ck_deflate_continuable_selftest); the last ends with the Adler-32 of all the filtered data
/// (adler32_combine of the bands'). At most 2 * threads bands wait to be
/// written. Returns NULL when libdeflate is missing, the configuration is
/// invalid or memory is short. Always end it with ck_stream_finish.
ck_stream *ck_stream_start(const ck_stream_config *config);

/// Order-0 entropy, in bits a byte, from which a band counts as noise.
#define CK_STREAM_NOISE_BITS 5.7
/// Order-0 entropy, in bits a byte, below which a band counts as nearly flat.
#define CK_STREAM_FLAT_BITS 1.0

/// The level the automatic setting gives a band of `rows` filtered rows (each
/// its filter-type byte then `row_bytes` bytes): 1 when the noisiest byte of
/// the pixel (`bpp` bytes; a channel, or half of a 16-bit one) has an order-0
/// entropy of at least CK_STREAM_NOISE_BITS over the band (noise: few strings
/// of three bytes miss a noisy byte, and libdeflate's deeper searches were
/// measured to save nothing there); 6 when even that byte is nearly flat
/// (under CK_STREAM_FLAT_BITS); else 4 when the flattest byte of the pixel
/// is nearly flat (an opaque alpha), else 2 (a photograph's bands).
int ck_stream_automatic_level(const uint8_t *filtered, size_t rows, size_t row_bytes, size_t bpp);

/// The offset below `offset` from `base` at which a page starts (0 when
/// none does): how far pages can be given back without touching `offset`.
size_t ck_page_floor(const uint8_t *base, size_t offset);

/// Gives the whole pages of bytes [from, to) after `base` back to the
/// system (madvise): they read as zeros afterwards. For buffers whose rows
/// are done with.
void ck_release_pages(const uint8_t *base, size_t from, size_t to);

/// Rows [0, rows) of the image are final. With `release`, does not return
/// while more than the window of rows waits: the caller compresses bands
/// itself meanwhile, or waits for the workers.
void ck_stream_rows_ready(ck_stream *stream, uint32_t rows);

/// Ends the stream: with `abandon` 0, the caller helps compress until every
/// band is written; with `abandon` 1 (the decode failed), the workers stop
/// and nothing more is written. Joins the workers, frees the stream, and
/// returns CK_STATUS_OK when every band was written (CK_STATUS_CANNOT_OPEN
/// when a write failed, CK_STATUS_OUT_OF_MEMORY, or CK_STATUS_CORRUPT when
/// rows never came). `written` receives the bytes written and
/// `level_counts` (13 entries, or NULL) how many bands went out at each level.
int ck_stream_finish(ck_stream *stream, int abandon, size_t *written, uint32_t *level_counts);

/// The Adler-32 of `data` (libdeflate_adler32 when present, else zlib's).
uint32_t ck_adler32(const uint8_t *data, size_t size);

/// The Adler-32 of `start`'s bytes followed by `data` (1 starts a new one).
uint32_t ck_adler32_update(uint32_t start, const uint8_t *data, size_t size);

/// Writes to `out` the best of the five PNG filters of `row` (its previous row
/// `prior`; zeros for the first), by the least sum of absolute values of the
/// filtered bytes read as signed, as libpng and Pillow choose, and returns
/// the filter type (0-4). `scratch` holds 4 * count bytes. Ties go to the
/// lower type.
uint8_t ck_png_filter_row(const uint8_t *row, const uint8_t *prior, size_t count, size_t bpp, uint8_t *out,
                          uint8_t *scratch);

/// Starts writing `count` bytes of the file at `offset` to disk without
/// waiting (Linux: sync_file_range with SYNC_FILE_RANGE_WRITE; elsewhere
/// nothing), so that a later fsync finds less to do.
void ck_start_writeback(int descriptor, int64_t offset, int64_t count);

/// Opens a new file with no name in `folder` (Linux: O_TMPFILE), for
/// writing, with `mode` (less the umask): it vanishes if the process dies
/// before ck_link_unnamed gives it one. -1 with errno where the system or
/// the file system cannot (EOPNOTSUPP, EISDIR, EINVAL).
int ck_open_unnamed(const char *folder, int mode);

/// Gives the unnamed file `descriptor` the name `path` (linkat), failing
/// with EEXIST rather than replacing a file there. 0, or -1 with errno.
int ck_link_unnamed(int descriptor, const char *path);

/// For tests: compresses `data` with libdeflate at level 1 and, when the
/// output is one block whose padding its header tells (the fast path of
/// making a band continuable; `fast` says whether it applied), checks that
/// padding and the stream's end against zlib's inflate(Z_BLOCK) walk.
/// Returns 1 when they agree (or the fast path did not apply), 0 when they
/// differ, -1 without libdeflate.
int ck_deflate_continuable_selftest(const uint8_t *data, size_t size, int *fast);

/// free(3), for memory the shims allocate.
void ck_free(void *pointer);

/// The CRC-32 (as zlib's crc32) over `data`, continuing from `crc`: computed
/// by libdeflate_crc32 when libdeflate is present, else by zlib.
uint32_t ck_crc32(uint32_t crc, const uint8_t *data, size_t size);


// MARK: HEIF (libheif, loaded at run time)

/// Whether libheif's shared library (libheif.so.1) could be loaded; loads it
/// on the first call.
int ck_heif_available(void);

/// libheif's version string, or NULL without libheif.
const char *ck_heif_version(void);

/// One coded image to decode: a minimal HEIF file in memory holding it as
/// its primary item, and where its pixels go.
typedef struct {
    /// The HEIF file (CropKit writes it; libheif only reads it).
    const uint8_t *file;
    size_t file_size;
    /// 3: RGB (interleaved), 1: the luma plane alone (an alpha image).
    uint32_t channels;
    /// The image's bit depth: above 8, samples are 16-bit big-endian
    /// holding the coded value.
    uint32_t bit_depth;
    /// The part of the decoded image to copy.
    uint32_t source_x, source_y, width, height;
    /// Where row 0 of that part goes, the bytes between rows, and the
    /// bytes between pixels there (equal to the source's, or wider: the
    /// alpha sample of an RGBA pixel).
    uint8_t *destination;
    size_t destination_stride;
    uint32_t destination_pixel_bytes;
    /// Above 8 bits: 0 copies the coded values; N (the bit depth) scales
    /// them to 16 bits by bit replication (v << (16 - N) | v >> (2N - 16)),
    /// so 0 and the maximum stay 0 and 65535 and v = sample >> (16 - N).
    uint32_t scale_bits;
    /// Nonzero: decode the YCbCr planes as coded instead (libheif's chroma
    /// code: 1 = 4:2:0, 2 = 4:2:2, 3 = 4:4:4) into `planes`, each of
    /// `plane_width` × `plane_height` samples (1 or 2 bytes by the bit
    /// depth, 16-bit in native order), rows packed.
    uint32_t planar_chroma;
    /// With `planar_chroma` 3: the image is coded RGB (matrix 0), its planes
    /// G, B, R.
    uint32_t planar_rgb;
    /// Nonzero: decode the one plane of a monochrome (4:0:0) image as coded
    /// into `planes[0]` (`plane_width[0]` × `plane_height[0]` samples), as
    /// `planar_chroma` does the three of a colour one.
    uint32_t planar_monochrome;
    uint8_t *planes[3];
    uint32_t plane_width[3];
    uint32_t plane_height[3];
    /// Why it failed.
    char message[256];
} ck_heif_decode_request;

/// Decodes the request's file and copies its part: CK_STATUS_OK, or
/// CK_STATUS_CORRUPT / CK_STATUS_OUT_OF_MEMORY / CK_STATUS_CANNOT_OPEN
/// (libheif missing) with `message` set. Thread-safe: each call has its own
/// libheif context.
int ck_heif_decode(ck_heif_decode_request *request);

/// Whether the loaded libheif can encode HEVC (its x265 encoder).
int ck_heif_can_encode(void);

/// YCbCr planes to encode as a one-image HEIF with libheif's HEVC encoder
/// (or its AV1 encoder: an AVIF).
typedef struct {
    /// libheif's compression code: 0 or 1 = HEVC (x265), 4 = AV1 (aom).
    int compression;
    uint32_t width, height, bit_depth;
    /// libheif's chroma code: 0 = 4:0:0 (monochrome: `planes[0]` alone),
    /// 1 = 4:2:0, 2 = 4:2:2, 3 = 4:4:4.
    int chroma;
    /// Each plane's samples, rows packed (1 or 2 bytes, native order).
    const uint8_t *planes[3];
    uint32_t plane_width[3];
    uint32_t plane_height[3];
    /// Lossy quality, 0-100.
    uint32_t quality;
    /// Encoder parameters as name/value pairs (`parameter_count` pairs,
    /// 2 × `parameter_count` strings), set after the quality: "preset",
    /// "tune", "x265:…". NULL for libheif's defaults.
    const char *const *parameters;
    size_t parameter_count;
    /// Nonzero (3 or 4): `planes[0]` holds 8-bit interleaved RGB or RGBA
    /// rows of `plane_width[0]` pixels instead of YCbCr planes; libheif
    /// converts them to YCbCr at `chroma` (and codes alpha as an auxiliary
    /// image).
    uint32_t interleaved_channels;
    /// Nonzero: the colour description written into the coded image
    /// (AV1's sequence header says it, and a grid's tiles must agree):
    /// primaries, transfer, matrix and full range, as `nclx` codes them.
    uint32_t has_nclx;
    uint32_t nclx_primaries, nclx_transfer, nclx_matrix, nclx_full_range;
    /// Optional metadata for the encoded image (NULL for none): an ICC
    /// profile, an EXIF TIFF structure, an XMP packet.
    const uint8_t *icc;
    size_t icc_size;
    const uint8_t *exif;
    size_t exif_size;
    const uint8_t *xmp;
    size_t xmp_size;
    /// The HEIF file written (free with ck_free).
    uint8_t *file;
    size_t file_size;
    char message[256];
} ck_heif_encode_request;

/// Encodes the request's planes: CK_STATUS_OK with `file` set, or an error
/// with `message`.
int ck_heif_encode_planes(ck_heif_encode_request *request);

// MARK: AVIF (libavif, loaded at run time)

/// Whether libavif 0.11 (libavif.so.15) could be loaded and lays out its
/// structures as CropKit declares them; loads it on the first call.
int ck_avif_available(void);

/// libavif's version string, or NULL without it.
const char *ck_avif_version(void);

/// Decodes a request whose file is a minimal one-image AVIF, as
/// ck_heif_decode does, with libavif (dav1d where present) on at most
/// `threads` threads; only the asked part is converted to RGB.
int ck_avif_decode(ck_heif_decode_request *request, uint32_t threads);

// MARK: WebP (libwebp, loaded at run time)

/// Whether libwebp's shared library (libwebp.so.7) could be loaded; loads it
/// on the first call.
int ck_webp_available(void);

/// Whether the loaded libwebp can encode.
int ck_webp_can_encode(void);

/// A rect of a WebP bitstream to decode, and where its pixels go.
typedef struct {
    /// A WebP file CropKit wrote: RIFF, VP8X and ALPH when there is alpha,
    /// then the VP8 or VP8L bitstream.
    const uint8_t *file;
    size_t file_size;
    /// The bitstream's size, and the rect in its grid.
    uint32_t image_width, image_height, x, y, width, height;
    /// Nonzero for a VP8 (lossy) bitstream: its rect is decoded with a
    /// margin, so that its edge pixels are upsampled as in a whole decode.
    uint32_t lossy;
    /// Nonzero: decode from the image's first row (libwebp 1.2 gives a
    /// filtered ALPH plane wrong below a cropped top).
    uint32_t from_top;
    /// 3: RGB, 4: RGBA (not premultiplied).
    uint32_t channels;
    /// Where row 0 of the rect goes, and the bytes between rows.
    uint8_t *destination;
    size_t destination_stride;
    /// Told how many rows are final as they are decoded (may be NULL).
    ck_rows_ready_fn ready;
    void *context;
    char message[160];
} ck_webp_decode_request;

/// Decodes the request's rect: CK_STATUS_OK, or CK_STATUS_CORRUPT /
/// CK_STATUS_OUT_OF_MEMORY / CK_STATUS_CANNOT_OPEN (libwebp missing) with
/// `message` set. Only the rows down to the rect's last are decoded.
int ck_webp_decode(ck_webp_decode_request *request);

/// Pixels to encode as a WebP bitstream.
typedef struct {
    /// 8-bit RGB (3) or RGBA (4, not premultiplied) pixels, `stride` bytes a row.
    const uint8_t *pixels;
    uint32_t width, height, channels, stride;
    /// Nonzero: VP8L, every sample kept (the colour under transparent
    /// pixels too), at libwebp's lossless `lossless_level` (0-9).
    uint32_t lossless, lossless_level;
    /// Lossy: VP8 at `quality` (0-100) with libwebp's `method` (0-6).
    uint32_t quality, method;
    /// The WebP file libwebp wrote (free with ck_free).
    uint8_t *output;
    size_t output_size;
    char message[160];
} ck_webp_encode_request;

/// Encodes the request's pixels: CK_STATUS_OK with `output` set, or an
/// error with `message`.
int ck_webp_encode(ck_webp_encode_request *request);

#ifdef __cplusplus
}
#endif

#endif
