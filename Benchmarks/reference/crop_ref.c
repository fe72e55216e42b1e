// The C reference: the same crop as `cropkit crop`, at the floor. It calls
// the very C functions CropKit uses (Sources/CImagingShims: crop-aware libpng
// and libjpeg-turbo reads that report each finished row to ck_stream, which
// filters and compresses bands of rows with libdeflate on THREADS threads
// while the decode goes on) with no Swift around them, so CropKit's own
// overhead is the ratio of the two times. Bands as CropKit cuts them: about
// sixteen a thread, 64 KiB to 2 MiB of filtered rows; the level chosen per band
// as cropkit's default `--level auto` does. Valid 8- or 16-bit PNG and
// 8-bit JPEG input only; no metadata is copied. CROP_REF_TIMES=1 prints when
// the decode ended and when the file was done. OUTPUT "-" decodes the crop
// and writes nothing: the decoder's own floor.
//
// The same job as cropkit's, not less: a PNG's every chunk CRC is checked
// (on a second thread, while the crop decodes, as cropkit checks its image
// data), and the output is written atomically (a temporary file in the
// output's folder, each full megabyte queued for disk, fsync, rename).
//   crop_ref INPUT OUTPUT X Y W H [LEVEL] [THREADS]
#include <fcntl.h>
#include <sys/stat.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jpeglib.h>

#include "CImagingShims.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void put32(FILE *f, uint32_t v) {
    uint8_t b[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    fwrite(b, 1, 4, f);
}

static void chunk(FILE *f, const char *type, const uint8_t *data, size_t size) {
    put32(f, (uint32_t)size);
    fwrite(type, 1, 4, f);
    if (size) fwrite(data, 1, size, f);
    uint32_t crc = ck_crc32(0, (const uint8_t *)type, 4);
    if (size) crc = ck_crc32(crc, data, size);
    put32(f, crc);
}

typedef struct {
    FILE *file;
    size_t written, queued;
} output_file;

static int write_band(void *context, const uint8_t *data, size_t size) {
    output_file *out = context;
    if (fwrite(data, 1, size, out->file) != size) return 1;
    out->written += size;
    if (out->written >> 20 > out->queued >> 20) {
        size_t end = out->written & ~(((size_t)1 << 20) - 1);
        if (fflush(out->file) != 0) return 1;
        ck_start_writeback(fileno(out->file), (int64_t)out->queued, (int64_t)(end - out->queued));
        out->queued = end;
    }
    return 0;
}

// Checks every chunk's CRC of the PNG at `argument` (a path); returns
// (void *)1 when all are right.
static void *check_png_crcs(void *argument) {
    int fd = open((const char *)argument, O_RDONLY);
    if (fd < 0) return NULL;
    off_t size = lseek(fd, 0, SEEK_END), offset = 8;
    size_t capacity = (size_t)1 << 20;
    uint8_t *buffer = malloc(capacity);
    void *result = (void *)1;
    while (buffer != NULL && offset + 12 <= size) {
        uint8_t head[8];
        if (pread(fd, head, 8, offset) != 8) break;
        size_t length = (size_t)head[0] << 24 | head[1] << 16 | head[2] << 8 | head[3];
        if (offset + 12 + (off_t)length > size) {
            result = NULL;
            break;
        }
        uint32_t crc = ck_crc32(0, head + 4, 4);
        for (size_t done = 0; done < length;) {
            size_t piece = length - done < capacity ? length - done : capacity;
            if (pread(fd, buffer, piece, offset + 8 + (off_t)done) != (ssize_t)piece) {
                result = NULL;
                break;
            }
            crc = ck_crc32(crc, buffer, piece);
            done += piece;
        }
        uint8_t stored[4];
        if (result == NULL || pread(fd, stored, 4, offset + 8 + (off_t)length) != 4 ||
            crc != ((uint32_t)stored[0] << 24 | stored[1] << 16 | stored[2] << 8 | stored[3])) {
            result = NULL;
            break;
        }
        if (memcmp(head + 4, "IEND", 4) == 0) break;
        offset += 12 + (off_t)length;
    }
    free(buffer);
    close(fd);
    return result;
}

int main(int argc, char **argv) {
    if (argc < 7) {
        fprintf(stderr, "usage: crop_ref INPUT OUTPUT X Y W H [LEVEL] [THREADS]\n");
        return 64;
    }
    double t0 = now();
    const char *input = argv[1], *output = argv[2];
    uint32_t x = (uint32_t)atoi(argv[3]), y = (uint32_t)atoi(argv[4]);
    uint32_t w = (uint32_t)atoi(argv[5]), h = (uint32_t)atoi(argv[6]);
    // LEVEL: auto (the default, as cropkit: ck_stream picks per band) or 1-12.
    int level = argc > 7 && strcmp(argv[7], "auto") != 0 ? atoi(argv[7]) : 0;
    int threads = argc > 8 ? atoi(argv[8]) : 2;
    if (threads < 1 || threads > 64) threads = 1;
    FILE *in = fopen(input, "rb");
    if (!in) return 2;
    // The readers take the bytes by position, as cropkit hands them over.
    int source_fd = open(input, O_RDONLY);
    struct stat source_stat;
    if (source_fd < 0 || fstat(source_fd, &source_stat) != 0) return 2;
    ck_input source = {.descriptor = source_fd, .bytes = NULL, .size = (uint64_t)source_stat.st_size};
    uint8_t head[33];
    size_t got = fread(head, 1, sizeof head, in);
    int png = got >= 33 && memcmp(head, "\x89PNG", 4) == 0;
    int depth = 8, color = 2;
    size_t bpp;
    ck_png_read_request pr;
    ck_jpeg_read_request jr;
    memset(&pr, 0, sizeof pr);
    memset(&jr, 0, sizeof jr);
    if (png) {
        fclose(in);
        pr.width = (uint32_t)head[16] << 24 | head[17] << 16 | head[18] << 8 | head[19];
        pr.height = (uint32_t)head[20] << 24 | head[21] << 16 | head[22] << 8 | head[23];
        pr.bit_depth = depth = head[24];
        pr.color_type = color = head[25];
        pr.interlaced = head[28];
        int channels = color == 0 || color == 3 ? 1 : color == 4 ? 2 : color == 2 ? 3 : 4;
        bpp = (size_t)channels * (depth == 16 ? 2 : 1);
        if (depth < 8) return 2;
        pr.crop_x = x, pr.crop_y = y, pr.crop_width = w, pr.crop_height = h;
        pr.max_width = pr.max_height = 1000000;
        pr.max_allocation = (size_t)1 << 32;
    } else {
        // The frame header, read by libjpeg itself.
        struct jpeg_decompress_struct cinfo;
        struct jpeg_error_mgr jerr;
        cinfo.err = jpeg_std_error(&jerr);
        jpeg_create_decompress(&cinfo);
        rewind(in);
        jpeg_stdio_src(&cinfo, in);
        jpeg_read_header(&cinfo, TRUE);
        jr.width = cinfo.image_width, jr.height = cinfo.image_height, jr.components = cinfo.num_components;
        jpeg_destroy_decompress(&cinfo);
        fclose(in);
        bpp = jr.components == 1 ? 1 : 3;
        color = bpp == 1 ? 0 : 2;
        jr.crop_x = x, jr.crop_y = y, jr.crop_width = w, jr.crop_height = h;
        jr.max_scans = 500, jr.max_memory = 512L << 20;
    }
    size_t row_bytes = w * bpp;
    uint8_t *pixels = malloc(row_bytes * h);
    if (strcmp(output, "-") == 0) {
        if (png) {
            pr.pixels = pixels, pr.pixels_size = row_bytes * h;
            return ck_png_read_crop(&source, &pr) == CK_STATUS_OK ? 0 : 2;
        }
        jr.pixels = pixels, jr.pixels_size = row_bytes * h;
        return ck_jpeg_read_crop(&source, &jr) == CK_STATUS_OK ? 0 : 2;
    }
    char temporary[4096];
    const char *slash = strrchr(output, '/');
    int folder = slash ? (int)(slash - output) : 0;
    snprintf(temporary, sizeof temporary, "%.*s%s.%s.ref-XXXXXX", folder, output, slash ? "/" : "",
             slash ? slash + 1 : output);
    int descriptor = mkstemp(temporary);
    if (descriptor < 0) return 2;
    output_file destination = {.file = fdopen(descriptor, "wb")};
    FILE *out = destination.file;
    if (!pixels || !out) return 2;
    pthread_t checker;
    int checking = png && pthread_create(&checker, NULL, check_png_crcs, (void *)input) == 0;
    fwrite("\x89PNG\r\n\x1a\n", 1, 8, out);
    uint8_t ihdr[13] = {(uint8_t)(w >> 24), (uint8_t)(w >> 16), (uint8_t)(w >> 8), (uint8_t)w,
                        (uint8_t)(h >> 24), (uint8_t)(h >> 16), (uint8_t)(h >> 8), (uint8_t)h,
                        (uint8_t)depth,     (uint8_t)color,     0,                 0, 0};
    chunk(out, "IHDR", ihdr, 13);
    // Bands as PNGEncoder.bandRows cuts them by default.
    uint32_t band_rows = ck_stream_band_rows(row_bytes, h, threads, CK_STREAM_MIN_BAND_BYTES, CK_STREAM_MAX_BAND_BYTES);
    ck_stream_config config = {.pixels = pixels, .row_bytes = row_bytes, .height = h, .bpp = bpp,
                               .filter = color != 3, .level = level, .threads = threads,
                               .band_rows = band_rows, .write = write_band, .context = &destination};
    ck_stream *stream = ck_stream_start(&config);
    if (!stream) return 2;
    int status;
    if (png) {
        pr.pixels = pixels, pr.pixels_size = row_bytes * h;
        pr.rows_ready = ck_stream_rows_ready_callback, pr.rows_context = stream;
        status = ck_png_read_crop(&source, &pr);
    } else {
        jr.pixels = pixels, jr.pixels_size = row_bytes * h;
        jr.rows_ready = ck_stream_rows_ready_callback, jr.rows_context = stream;
        status = ck_jpeg_read_crop(&source, &jr);
    }
    double t1 = now();
    int failed = ck_stream_finish(stream, status != CK_STATUS_OK, NULL, NULL) != CK_STATUS_OK || status != CK_STATUS_OK;
    void *crcs_right = (void *)1;
    if (checking) pthread_join(checker, &crcs_right);
    chunk(out, "IEND", NULL, 0);
    if (failed || crcs_right == NULL || fflush(out) != 0 || fchmod(fileno(out), 0644) != 0 ||
        fsync(fileno(out)) != 0 || fclose(out) != 0 ||
        rename(temporary, output) != 0) {
        unlink(temporary);
        return 2;
    }
    if (getenv("CROP_REF_TIMES"))
        fprintf(stderr, "decode done at %.1f ms, file done at %.1f ms\n", (t1 - t0) * 1e3, (now() - t0) * 1e3);
    return 0;
}
