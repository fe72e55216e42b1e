// The PNG image data, compressed while the crop is still being decoded.
//
// The decoder fills the crop's rows top-down and reports each finished row;
// the rows are cut into bands, and every thread (the workers, then the
// decoding thread once its rows are all in) takes the next band whose rows
// are ready, filters it into its own buffer, compresses it with libdeflate
// and makes it continuable (see ck_band_finish in deflate.c). Bands are
// written in order, each as one IDAT chunk, by whichever thread completes the
// band that is next; the Adler-32s of the bands are combined as they go out.
#include "CImagingShims.h"
#include "deflate_internal.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

typedef struct {
    uint8_t *chunk;   // the whole IDAT chunk: length, type, data, room for the CRC
    size_t size;      // bytes of chunk, CRC included
    uint32_t adler;   // of the band's filtered bytes
    size_t filtered;  // filtered bytes in the band
    int level;        // the libdeflate level it was compressed at
    int done;
} ck_stream_band;

// The most input one piece of a noisy band holds (see ck_stream_compress).
#define CK_STREAM_PIECE_BYTES ((size_t)65535)

struct ck_stream {
    ck_stream_config config;
    uint32_t band_count;
    ck_stream_band *bands;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    uint32_t rows;        // rows the decoder has finished
    uint32_t next_claim;  // the next band no thread has taken
    uint32_t next_write;  // the next band to go out
    int decoding;         // whether the decoder may still add rows
    int writing;          // whether a thread is writing bands now
    int status;           // CK_STATUS_OK until something fails
    uint32_t adler;       // of every band written so far
    uint32_t level_counts[13];  // bands written at each level
    size_t written;       // bytes written so far
    int planned_workers;  // set before any worker starts; read by them
    int worker_count;     // started; read and written by the caller only
    pthread_t workers[64];
    // With config.release: the lowest band not yet compressed, the pixel
    // bytes already given back, and the rows allowed to wait.
    uint32_t next_undone;
    size_t released;
    uint32_t window_rows;
    void *caller_worker;  // the decoding thread's buffers, made when it helps
};

static uint32_t ck_band_end(const ck_stream *stream, uint32_t band) {
    uint64_t end = (uint64_t)(band + 1) * stream->config.band_rows;
    return end > stream->config.height ? stream->config.height : (uint32_t)end;
}

static void ck_put32(uint8_t *out, uint32_t value) {
    out[0] = (uint8_t)(value >> 24);
    out[1] = (uint8_t)(value >> 16);
    out[2] = (uint8_t)(value >> 8);
    out[3] = (uint8_t)value;
}

// A thread's own buffers, reused for every band it takes.
typedef struct {
    struct libdeflate_compressor *compressors[13];  // by level, made when first needed
    uint8_t *filtered;
    uint8_t *scratch;
    uint8_t *zeros;
    // A piece of CK_STREAM_PIECE_BYTES zeros compressed and made continuable
    // at `zero_piece_level` (0: none yet), repeated for blank bands.
    uint8_t *zero_piece;
    size_t zero_piece_size;
    int zero_piece_level;
} ck_stream_worker;

int ck_stream_automatic_level(const uint8_t *filtered, size_t rows, size_t row_bytes, size_t bpp) {
    // One byte-value histogram per byte of a pixel (a channel, or half of a
    // 16-bit one), past each row's filter-type byte.
    enum { most = 8 };
    uint32_t counts[most][256];
    size_t lanes = bpp < most ? bpp : most;
    memset(counts, 0, sizeof counts);
    for (size_t y = 0; y < rows; y++) {
        const uint8_t *row = filtered + y * (row_bytes + 1) + 1;
        for (size_t lane = 0; lane < lanes; lane++) {
            uint32_t *table = counts[lane];
            for (size_t i = lane; i < row_bytes; i += bpp) table[row[i]] += 1;
        }
    }
    double noisiest = 0, flattest = 8;
    for (size_t lane = 0; lane < lanes; lane++) {
        uint64_t total = 0;
        for (int value = 0; value < 256; value++) total += counts[lane][value];
        if (total == 0) continue;
        double bits = 0;
        for (int value = 0; value < 256; value++) {
            if (counts[lane][value] == 0) continue;
            double p = (double)counts[lane][value] / (double)total;
            bits -= p * log2(p);
        }
        if (bits > noisiest) noisiest = bits;
        if (bits < flattest) flattest = bits;
    }
    if (noisiest >= CK_STREAM_NOISE_BITS) return 1;
    if (noisiest < CK_STREAM_FLAT_BITS) return 6;
    // A flat lane beside busy ones (an opaque alpha channel) breaks every
    // match libdeflate's level 2 finds into short ones; level 4 finds the
    // longer ones (measured on real photos as RGBA: 1.089 -> 1.037 of
    // Pillow's bytes).
    return flattest < CK_STREAM_FLAT_BITS ? 4 : 2;
}

// Whether all `size` bytes at `data` are zero.
static int ck_all_zero(const uint8_t *data, size_t size) {
    static const uint8_t zeros[4096];
    for (size_t offset = 0; offset < size; offset += sizeof zeros) {
        size_t count = size - offset < sizeof zeros ? size - offset : sizeof zeros;
        if (memcmp(data + offset, zeros, count) != 0) return 0;
    }
    return 1;
}

// Filters and compresses one band into `result`; returns a status.
static int ck_stream_compress(ck_stream *stream, ck_stream_worker *worker, uint32_t band, ck_stream_band *result) {
    const ck_stream_config *config = &stream->config;
    uint32_t first = band * config->band_rows, end = ck_band_end(stream, band);
    size_t stride = config->row_bytes + 1;
    size_t size = (size_t)(end - first) * stride;
    for (uint32_t y = first; y < end; y++) {
        const uint8_t *row = config->pixels + (size_t)y * config->row_bytes;
        const uint8_t *prior = y > 0 ? row - config->row_bytes : worker->zeros;
        uint8_t *target = worker->filtered + (size_t)(y - first) * stride;
        if (config->filter) {
            target[0] = ck_png_filter_row(row, prior, config->row_bytes, config->bpp, target + 1, worker->scratch);
        } else {
            target[0] = 0;
            memcpy(target + 1, row, config->row_bytes);
        }
    }
    result->filtered = size;
    // A blank band (every filtered byte zero, filter bytes included: rows
    // of zeros) needs no search: its Adler-32 is known, and its data is one
    // compressed piece of zeros, repeated.
    int blank = ck_all_zero(worker->filtered, size);
    result->adler = blank ? (uint32_t)((size % 65521) << 16 | 1) : ck_adler32(worker->filtered, size);
    int first_band = band == 0, last_band = band == stream->band_count - 1;
    int level = config->level > 0 ? config->level
                : blank ? 6
                        : ck_stream_automatic_level(worker->filtered, end - first, config->row_bytes, config->bpp);
    result->level = level;
    if (worker->compressors[level] == NULL) worker->compressors[level] = ck_deflate_alloc(level);
    struct libdeflate_compressor *compressor = worker->compressors[level];
    if (compressor == NULL) return CK_STATUS_OUT_OF_MEMORY;
    size_t header = 8 + (first_band ? 2 : 0);
    // A band at level 1 (a noisy one under the automatic level, or any
    // when level 1 is asked for, as the export checks' fixtures are) goes
    // out as streams of at most 64 KiB of input: libdeflate writes each as
    // one block, whose final bit is its first and whose padding its header
    // tells, so none has to be decoded again to be made continuable (zlib's
    // walk of a band took a fifth of its compression time). Restarting the
    // window costs little on noise (measured: +0.002 to +0.3% of output).
    // A band the automatic level finds flat goes out in pieces too: the
    // walk inflates what a flat band compressed 1000 to 1 (a blank 13000²
    // image spent a third of its time there), and a flat piece loses
    // nothing to the restarted window.
    size_t piece =
        blank || level == 1 || (config->level == 0 && level == 6) ? CK_STREAM_PIECE_BYTES : size;
    if (blank && worker->zero_piece_level != level) {
        // Compressed once a thread and level: CK_STREAM_PIECE_BYTES zeros
        // as one continuable block (its fast path; else zlib's walk of it).
        free(worker->zero_piece);
        worker->zero_piece_level = 0;
        size_t room = ck_deflate_bound(compressor, CK_STREAM_PIECE_BYTES) + 5;
        worker->zero_piece = malloc(room);
        uint8_t *zeros = calloc(1, CK_STREAM_PIECE_BYTES);
        size_t made = 0;
        if (worker->zero_piece != NULL && zeros != NULL) {
            made = ck_deflate_compress(compressor, zeros, CK_STREAM_PIECE_BYTES, worker->zero_piece, room - 5);
            if (made > 0) made = ck_deflate_make_continuable(worker->zero_piece, made);
        }
        free(zeros);
        if (made == 0) return CK_STATUS_OUT_OF_MEMORY;
        worker->zero_piece_size = made;
        worker->zero_piece_level = level;
    }
    size_t bound = 0;
    for (size_t offset = 0; offset < size; offset += piece)
        bound += ck_deflate_bound(compressor, size - offset < piece ? size - offset : piece) + 5;
    // Behind the data: the Adler-32 (4), then the CRC.
    result->chunk = malloc(header + bound + 4 + 4);
    if (result->chunk == NULL) return CK_STATUS_OUT_OF_MEMORY;
    size_t data = 0;
    for (size_t offset = 0; offset < size; offset += piece) {
        size_t count = size - offset < piece ? size - offset : piece;
        uint8_t *out = result->chunk + header + data;
        if (blank && count == CK_STREAM_PIECE_BYTES && !(last_band && offset + count == size)) {
            memcpy(out, worker->zero_piece, worker->zero_piece_size);
            data += worker->zero_piece_size;
            continue;
        }
        size_t written =
            ck_deflate_compress(compressor, worker->filtered + offset, count, out, ck_deflate_bound(compressor, count));
        if (written == 0) return CK_STATUS_OUT_OF_MEMORY;
        if (!(last_band && offset + count == size)) {
            written = ck_deflate_make_continuable(out, written);
            if (written == 0) return CK_STATUS_CORRUPT;
        }
        data += written;
    }
    if (first_band) {
        result->chunk[8] = 0x78;  // deflate, 32 KiB window
        result->chunk[9] = 0x9C;  // default level; 0x789C is a multiple of 31
    }
    size_t length = (header - 8) + data + (last_band ? 4 : 0);
    ck_put32(result->chunk, (uint32_t)length);
    memcpy(result->chunk + 4, "IDAT", 4);
    result->size = 8 + length + 4;
    return CK_STATUS_OK;
}

// Writes the bands that are done, in order; called and returns with the lock
// held, drops it while writing.
static void ck_stream_write_ready(ck_stream *stream) {
    if (stream->writing) return;
    stream->writing = 1;
    while (stream->status == CK_STATUS_OK && stream->next_write < stream->band_count &&
           stream->bands[stream->next_write].done) {
        uint32_t band = stream->next_write;
        ck_stream_band *result = &stream->bands[band];
        stream->adler = band == 0 ? result->adler
                                  : (uint32_t)adler32_combine(stream->adler, result->adler, (z_off_t)result->filtered);
        uint32_t adler = stream->adler;
        pthread_mutex_unlock(&stream->lock);
        if (band == stream->band_count - 1) ck_put32(result->chunk + result->size - 8, adler);
        ck_put32(result->chunk + result->size - 4, ck_crc32(0, result->chunk + 4, result->size - 8));
        int failed = stream->config.write(stream->config.context, result->chunk, result->size) != 0;
        free(result->chunk);
        result->chunk = NULL;
        pthread_mutex_lock(&stream->lock);
        if (failed && stream->status == CK_STATUS_OK) stream->status = CK_STATUS_CANNOT_OPEN;
        if (!failed) {
            stream->written += result->size;
            stream->level_counts[result->level] += 1;
        }
        stream->next_write += 1;
        pthread_cond_broadcast(&stream->changed);
    }
    stream->writing = 0;
}

static int ck_stream_worker_init(ck_stream_worker *worker, const ck_stream_config *config) {
    memset(worker, 0, sizeof *worker);
    size_t band_bytes = (size_t)config->band_rows * (config->row_bytes + 1);
    worker->filtered = malloc(band_bytes);
    worker->scratch = malloc(config->row_bytes * 4 + 1);
    worker->zeros = calloc(config->row_bytes + 1, 1);
    return worker->filtered && worker->scratch && worker->zeros;
}

static void ck_stream_worker_free(ck_stream_worker *worker) {
    for (int level = 0; level < 13; level++) ck_deflate_free(worker->compressors[level]);
    free(worker->zero_piece);
    free(worker->filtered);
    free(worker->scratch);
    free(worker->zeros);
}

// At most this many bands done but not yet written: memory stays bounded
// when one band is slow.
static uint32_t ck_stream_ahead(const ck_stream *stream) { return 2 * (uint32_t)(stream->planned_workers + 1); }

// Whether the next band can be taken now: its rows are in and not too many
// bands wait to be written. Called with the lock held.
static int ck_stream_claimable(const ck_stream *stream) {
    uint32_t band = stream->next_claim;
    return band < stream->band_count && stream->rows >= ck_band_end(stream, band) &&
           band < stream->next_write + ck_stream_ahead(stream);
}

size_t ck_page_floor(const uint8_t *base, size_t offset) {
    long page_size = sysconf(_SC_PAGESIZE);
    uintptr_t page = page_size > 0 ? (uintptr_t)page_size : 4096;
    uintptr_t end = ((uintptr_t)base + offset) / page * page;
    return end > (uintptr_t)base ? (size_t)(end - (uintptr_t)base) : 0;
}

void ck_release_pages(const uint8_t *base, size_t from, size_t to) {
    long page_size = sysconf(_SC_PAGESIZE);
    uintptr_t page = page_size > 0 ? (uintptr_t)page_size : 4096;
    uintptr_t start = ((uintptr_t)base + from + page - 1) / page * page;
    uintptr_t end = ((uintptr_t)base + to) / page * page;
    if (end <= start) return;
#if defined(__linux__)
    madvise((void *)start, end - start, MADV_DONTNEED);
#elif defined(MADV_FREE)
    madvise((void *)start, end - start, MADV_FREE);
#endif
}

// Gives back the pages of the rows no band still to compress reads: those
// above the first undone band's prior row. Called with the lock held;
// drops it while calling madvise.
static void ck_stream_release(ck_stream *stream) {
    while (stream->next_undone < stream->band_count && stream->bands[stream->next_undone].done)
        stream->next_undone += 1;
    if (!stream->config.release || stream->next_undone == 0) return;
    uint32_t keep = stream->next_undone * stream->config.band_rows;
    if (keep > stream->config.height) keep = stream->config.height;
    size_t limit = (size_t)(keep - 1) * stream->config.row_bytes;
    size_t from = stream->released;
    size_t to = ck_page_floor(stream->config.pixels, limit);
    if (to <= from) return;
    stream->released = to;
    pthread_mutex_unlock(&stream->lock);
    ck_release_pages(stream->config.pixels, from, to);
    pthread_mutex_lock(&stream->lock);
}

// Compresses the next band in this thread and hands it to the writer.
// Called with the lock held and a claimable band; returns with it held.
static void ck_stream_take(ck_stream *stream, ck_stream_worker *worker) {
    uint32_t band = stream->next_claim;
    stream->next_claim += 1;
    pthread_mutex_unlock(&stream->lock);
    ck_stream_band result = {0};
    int status = ck_stream_compress(stream, worker, band, &result);
    pthread_mutex_lock(&stream->lock);
    if (status != CK_STATUS_OK) {
        free(result.chunk);
        if (stream->status == CK_STATUS_OK) stream->status = status;
    } else {
        result.done = 1;
        stream->bands[band] = result;
        ck_stream_write_ready(stream);
        ck_stream_release(stream);
    }
    pthread_cond_broadcast(&stream->changed);
}

// Takes bands until none is left; the workers' loop, and the decoding
// thread's once it has finished.
static void ck_stream_run(ck_stream *stream, ck_stream_worker *worker) {
    pthread_mutex_lock(&stream->lock);
    while (stream->status == CK_STATUS_OK && stream->next_claim < stream->band_count) {
        if (!ck_stream_claimable(stream)) {
            if (!stream->decoding && stream->rows < ck_band_end(stream, stream->next_claim)) {
                // The decoder is done but never delivered these rows.
                stream->status = CK_STATUS_CORRUPT;
                break;
            }
            pthread_cond_wait(&stream->changed, &stream->lock);
            continue;
        }
        ck_stream_take(stream, worker);
    }
    pthread_cond_broadcast(&stream->changed);
    pthread_mutex_unlock(&stream->lock);
}

static void *ck_stream_worker_main(void *argument) {
    ck_stream *stream = argument;
    ck_stream_worker worker;
    if (ck_stream_worker_init(&worker, &stream->config)) {
        ck_stream_run(stream, &worker);
    } else {
        pthread_mutex_lock(&stream->lock);
        if (stream->status == CK_STATUS_OK) stream->status = CK_STATUS_OUT_OF_MEMORY;
        pthread_cond_broadcast(&stream->changed);
        pthread_mutex_unlock(&stream->lock);
    }
    ck_stream_worker_free(&worker);
    return NULL;
}

// The decoding thread's buffers, made the first time it needs them.
static ck_stream_worker *ck_stream_caller_worker(ck_stream *stream) {
    if (stream->caller_worker == NULL) {
        ck_stream_worker *worker = malloc(sizeof *worker);
        if (worker == NULL) return NULL;
        if (!ck_stream_worker_init(worker, &stream->config)) {
            ck_stream_worker_free(worker);
            free(worker);
            return NULL;
        }
        stream->caller_worker = worker;
    }
    return stream->caller_worker;
}

uint32_t ck_stream_band_rows(size_t row_bytes, uint32_t height, int threads, size_t min_bytes, size_t max_bytes) {
    size_t stride = row_bytes + 1;
    size_t total = stride * height;
    size_t target = threads <= 1 ? total : total / ((size_t)threads * 16);
    if (threads > 1 && target < min_bytes) target = min_bytes;
    if (target > max_bytes) target = max_bytes;
    size_t rows = target / stride;
    if (rows < 1) rows = 1;
    if (rows > height) rows = height;
    return (uint32_t)rows;
}

ck_stream *ck_stream_start(const ck_stream_config *config) {
    if (!ck_libdeflate_available() || config->level < 0 || config->level > 12 || config->pixels == NULL || config->height == 0 || config->row_bytes == 0 ||
        config->band_rows == 0 || config->write == NULL || config->bpp == 0)
        return NULL;
    if ((size_t)config->band_rows * (config->row_bytes + 1) > ((size_t)1 << 31)) return NULL;
    ck_stream *stream = calloc(1, sizeof *stream);
    if (stream == NULL) return NULL;
    stream->config = *config;
    stream->band_count = (uint32_t)(((uint64_t)config->height + config->band_rows - 1) / config->band_rows);
    stream->bands = calloc(stream->band_count, sizeof *stream->bands);
    if (stream->bands == NULL) {
        free(stream);
        return NULL;
    }
    pthread_mutex_init(&stream->lock, NULL);
    pthread_cond_init(&stream->changed, NULL);
    stream->decoding = 1;
    stream->status = CK_STATUS_OK;
    // Clamped on both sides before any unsigned comparison: threads <= 0
    // once made `wanted` -1, which the cast below turned into every band.
    int wanted = config->threads - 1;
    if (wanted < 0) wanted = 0;
    if (wanted > 64) wanted = 64;
    if ((uint32_t)wanted > stream->band_count - 1) wanted = (int)stream->band_count - 1;
    stream->planned_workers = wanted;
    // The rows a releasing stream lets wait: the window, but room for a
    // band a thread and the one being decoded, and never more than the
    // bands allowed ahead of the writer.
    size_t band_bytes = (size_t)config->band_rows * config->row_bytes;
    uint64_t window_bands = band_bytes > 0 ? CK_STREAM_WINDOW_BYTES / band_bytes : 1;
    if (window_bands < (uint64_t)wanted + 2) window_bands = (uint64_t)wanted + 2;
    if (window_bands > (uint64_t)ck_stream_ahead(stream) + 1) window_bands = ck_stream_ahead(stream) + 1;
    uint64_t window_rows = window_bands * config->band_rows;
    stream->window_rows = window_rows > config->height ? config->height : (uint32_t)window_rows;
    for (int i = 0; i < wanted; i++) {
        if (pthread_create(&stream->workers[stream->worker_count], NULL, ck_stream_worker_main, stream) != 0) break;
        stream->worker_count += 1;
    }
    return stream;
}

void ck_stream_rows_ready_callback(void *stream, uint32_t rows) { ck_stream_rows_ready((ck_stream *)stream, rows); }

void ck_stream_rows_ready(ck_stream *stream, uint32_t rows) {
    pthread_mutex_lock(&stream->lock);
    uint32_t before = stream->rows;
    stream->rows = rows;
    // Wake the workers only when a band they wait for has become ready.
    if (stream->next_claim < stream->band_count) {
        uint32_t needed = ck_band_end(stream, stream->next_claim);
        if (before < needed && rows >= needed) pthread_cond_broadcast(&stream->changed);
    }
    // Hold the decoder while more than the window waits: it compresses a
    // band itself when one can be taken, else waits for a worker's.
    while (stream->config.release && stream->status == CK_STATUS_OK && stream->next_undone < stream->band_count &&
           rows - stream->next_undone * stream->config.band_rows > stream->window_rows) {
        if (ck_stream_claimable(stream)) {
            ck_stream_worker *worker = ck_stream_caller_worker(stream);
            if (worker == NULL) {
                stream->status = CK_STATUS_OUT_OF_MEMORY;
                pthread_cond_broadcast(&stream->changed);
                break;
            }
            ck_stream_take(stream, worker);
        } else {
            pthread_cond_wait(&stream->changed, &stream->lock);
        }
    }
    pthread_mutex_unlock(&stream->lock);
}

int ck_stream_finish(ck_stream *stream, int abandon, size_t *written, uint32_t *level_counts) {
    pthread_mutex_lock(&stream->lock);
    stream->decoding = 0;
    if (abandon && stream->status == CK_STATUS_OK) stream->status = CK_STATUS_CORRUPT;
    pthread_cond_broadcast(&stream->changed);
    pthread_mutex_unlock(&stream->lock);
    if (!abandon) {
        ck_stream_worker *worker = ck_stream_caller_worker(stream);
        if (worker != NULL) {
            ck_stream_run(stream, worker);
        } else {
            pthread_mutex_lock(&stream->lock);
            if (stream->status == CK_STATUS_OK) stream->status = CK_STATUS_OUT_OF_MEMORY;
            pthread_cond_broadcast(&stream->changed);
            pthread_mutex_unlock(&stream->lock);
        }
    }
    for (int i = 0; i < stream->worker_count; i++) pthread_join(stream->workers[i], NULL);
    if (stream->caller_worker != NULL) {
        ck_stream_worker_free(stream->caller_worker);
        free(stream->caller_worker);
    }
    int status = stream->status;
    if (status == CK_STATUS_OK && stream->next_write != stream->band_count) status = CK_STATUS_CORRUPT;
    if (written) *written = stream->written;
    if (level_counts) memcpy(level_counts, stream->level_counts, sizeof stream->level_counts);
    for (uint32_t i = 0; i < stream->band_count; i++) free(stream->bands[i].chunk);
    free(stream->bands);
    pthread_mutex_destroy(&stream->lock);
    pthread_cond_destroy(&stream->changed);
    free(stream);
    return status;
}
