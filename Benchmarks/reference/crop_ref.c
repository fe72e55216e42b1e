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
//   crop_ref INPUT OUTPUT X Y W H [LEVEL] [THREADS]
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

static int write_band(void *context, const uint8_t *data, size_t size) {
    return fwrite(data, 1, size, (FILE *)context) == size ? 0 : 1;
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
            return ck_png_read_crop(input, &pr) == CK_STATUS_OK ? 0 : 2;
        }
        jr.pixels = pixels, jr.pixels_size = row_bytes * h;
        return ck_jpeg_read_crop(input, &jr) == CK_STATUS_OK ? 0 : 2;
    }
    FILE *out = fopen(output, "wb");
    if (!pixels || !out) return 2;
    fwrite("\x89PNG\r\n\x1a\n", 1, 8, out);
    uint8_t ihdr[13] = {(uint8_t)(w >> 24), (uint8_t)(w >> 16), (uint8_t)(w >> 8), (uint8_t)w,
                        (uint8_t)(h >> 24), (uint8_t)(h >> 16), (uint8_t)(h >> 8), (uint8_t)h,
                        (uint8_t)depth,     (uint8_t)color,     0,                 0, 0};
    chunk(out, "IHDR", ihdr, 13);
    // Bands as PNGEncoder.bandRows cuts them.
    size_t total = (row_bytes + 1) * h;
    size_t target = threads == 1 ? total : total / (size_t)(threads * 16);
    if (threads > 1 && target < ((size_t)64 << 10)) target = (size_t)64 << 10;
    if (target > ((size_t)2 << 20)) target = (size_t)2 << 20;
    size_t band_rows = target / (row_bytes + 1);
    if (band_rows < 1) band_rows = 1;
    if (band_rows > h) band_rows = h;
    ck_stream_config config = {.pixels = pixels, .row_bytes = row_bytes, .height = h, .bpp = bpp,
                               .filter = color != 3, .level = level, .threads = threads,
                               .band_rows = (uint32_t)band_rows, .write = write_band, .context = out};
    ck_stream *stream = ck_stream_start(&config);
    if (!stream) return 2;
    int status;
    if (png) {
        pr.pixels = pixels, pr.pixels_size = row_bytes * h, pr.stream = stream;
        status = ck_png_read_crop(input, &pr);
    } else {
        jr.pixels = pixels, jr.pixels_size = row_bytes * h, jr.stream = stream;
        status = ck_jpeg_read_crop(input, &jr);
    }
    double t1 = now();
    if (ck_stream_finish(stream, status != CK_STATUS_OK, NULL, NULL) != CK_STATUS_OK || status != CK_STATUS_OK) return 2;
    chunk(out, "IEND", NULL, 0);
    if (fclose(out) != 0) return 2;
    if (getenv("CROP_REF_TIMES"))
        fprintf(stderr, "decode done at %.1f ms, file done at %.1f ms\n", (t1 - t0) * 1e3, (now() - t0) * 1e3);
    return 0;
}
