// The C reference: the same crop as `cropkit crop`, at the floor. It calls
// the very C functions CropKit uses (Sources/CImagingShims: crop-aware libpng
// and libjpeg-turbo reads, the row filter, libdeflate at the same level) with
// no Swift around them, so CropKit's own overhead is the ratio of the two
// times. Valid 8- or 16-bit PNG and 8-bit JPEG input only; no metadata is
// copied. Compression runs in THREADS bands (default 2, as cropkit on this
// machine), one IDAT each.
//   crop_ref INPUT OUTPUT X Y W H [LEVEL] [THREADS]
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>

#include "CImagingShims.h"

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

int main(int argc, char **argv) {
    if (argc < 7) {
        fprintf(stderr, "usage: crop_ref INPUT OUTPUT X Y W H [LEVEL]\n");
        return 64;
    }
    const char *input = argv[1], *output = argv[2];
    uint32_t x = (uint32_t)atoi(argv[3]), y = (uint32_t)atoi(argv[4]);
    uint32_t w = (uint32_t)atoi(argv[5]), h = (uint32_t)atoi(argv[6]);
    int level = argc > 7 ? atoi(argv[7]) : 6;
    int threads = argc > 8 ? atoi(argv[8]) : 2;
    FILE *in = fopen(input, "rb");
    if (!in) return 2;
    uint8_t head[33];
    size_t got = fread(head, 1, sizeof head, in);
    int channels, depth, color;
    size_t bpp;
    uint8_t *pixels;
    size_t row_bytes;
    if (got >= 33 && memcmp(head, "\x89PNG", 4) == 0) {
        fclose(in);
        ck_png_read_request r;
        memset(&r, 0, sizeof r);
        r.width = (uint32_t)head[16] << 24 | head[17] << 16 | head[18] << 8 | head[19];
        r.height = (uint32_t)head[20] << 24 | head[21] << 16 | head[22] << 8 | head[23];
        r.bit_depth = depth = head[24];
        r.color_type = color = head[25];
        r.interlaced = head[28];
        channels = color == 0 || color == 3 ? 1 : color == 4 ? 2 : color == 2 ? 3 : 4;
        bpp = (size_t)channels * (depth == 16 ? 2 : 1);
        if (depth < 8) return 2;
        r.crop_x = x, r.crop_y = y, r.crop_width = w, r.crop_height = h;
        r.max_width = r.max_height = 1000000;
        r.max_allocation = (size_t)1 << 32;
        row_bytes = w * bpp;
        pixels = malloc(row_bytes * h);
        r.pixels = pixels, r.pixels_size = row_bytes * h;
        if (ck_png_read_crop(input, &r) != CK_STATUS_OK) return 2;
    } else {
        // The frame header, read by libjpeg itself.
        struct jpeg_decompress_struct cinfo;
        struct jpeg_error_mgr jerr;
        cinfo.err = jpeg_std_error(&jerr);
        jpeg_create_decompress(&cinfo);
        rewind(in);
        jpeg_stdio_src(&cinfo, in);
        jpeg_read_header(&cinfo, TRUE);
        ck_jpeg_read_request r;
        memset(&r, 0, sizeof r);
        r.width = cinfo.image_width, r.height = cinfo.image_height, r.components = cinfo.num_components;
        jpeg_destroy_decompress(&cinfo);
        fclose(in);
        channels = r.components == 1 ? 1 : 3;
        depth = 8;
        color = channels == 1 ? 0 : 2;
        bpp = (size_t)channels;
        r.crop_x = x, r.crop_y = y, r.crop_width = w, r.crop_height = h;
        r.max_scans = 500, r.max_memory = 512L << 20;
        row_bytes = w * bpp;
        pixels = malloc(row_bytes * h);
        r.pixels = pixels, r.pixels_size = row_bytes * h;
        if (ck_jpeg_read_crop(input, &r) != CK_STATUS_OK) return 2;
    }
    // Filter every row (min-SAD, as CropKit), then one libdeflate stream.
    size_t stride = row_bytes + 1;
    uint8_t *filtered = malloc(stride * h);
    uint8_t *scratch = malloc(row_bytes * 4);
    uint8_t *zeros = calloc(row_bytes, 1);
    size_t filter_bpp = bpp;
    for (uint32_t j = 0; j < h; j++) {
        const uint8_t *row = pixels + (size_t)j * row_bytes;
        const uint8_t *prior = j ? row - row_bytes : zeros;
        if (color == 3) {
            filtered[(size_t)j * stride] = 0;
            memcpy(filtered + (size_t)j * stride + 1, row, row_bytes);
        } else {
            filtered[(size_t)j * stride] =
                ck_png_filter_row(row, prior, row_bytes, filter_bpp, filtered + (size_t)j * stride + 1, scratch);
        }
    }
    ck_band bands[64];
    if (threads < 1 || threads > 64) threads = 1;
    uint32_t adler = ck_adler32(filtered, stride * h);
    if (ck_libdeflate_deflate_bands(filtered, stride * h, level, threads, 1, 1, adler, bands) != CK_STATUS_OK)
        return 2;
    FILE *out = fopen(output, "wb");
    if (!out) return 2;
    fwrite("\x89PNG\r\n\x1a\n", 1, 8, out);
    uint8_t ihdr[13] = {(uint8_t)(w >> 24), (uint8_t)(w >> 16), (uint8_t)(w >> 8), (uint8_t)w,
                        (uint8_t)(h >> 24), (uint8_t)(h >> 16), (uint8_t)(h >> 8), (uint8_t)h,
                        (uint8_t)depth,     (uint8_t)color,     0,                 0, 0};
    chunk(out, "IHDR", ihdr, 13);
    for (int i = 0; i < threads; i++) chunk(out, "IDAT", bands[i].data, bands[i].size);
    chunk(out, "IEND", NULL, 0);
    fclose(out);
    return 0;
}
