// The measurement behind `--level auto`: for each 8-bit PNG given, its rows
// filtered as CropKit filters them, cut into eight bands (64 KiB to 2 MiB;
// 1.1 MB for a 2000x1500 RGB crop), and for each band the order-0 entropy of
// its noisiest pixel byte (the statistic ck_stream_automatic_level uses,
// computed here on its own), its size at libdeflate levels 1 and 6, and the
// level `auto` gives it.
// Prints TSV. Built and run by Benchmarks/run-level-bands.
//   level_bands FILE.png...
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../Sources/CImagingShims/deflate_internal.h"
#include "CImagingShims.h"

static double noisiest(const uint8_t *rows, size_t count, size_t row_bytes, size_t bpp) {
    double most = 0;
    for (size_t lane = 0; lane < bpp; lane++) {
        double counts[256] = {0}, total = 0, bits = 0;
        for (size_t y = 0; y < count; y++)
            for (size_t i = lane; i < row_bytes; i += bpp) counts[rows[y * (row_bytes + 1) + 1 + i]] += 1, total += 1;
        for (int v = 0; v < 256; v++)
            if (counts[v] > 0) bits -= counts[v] / total * log2(counts[v] / total);
        if (bits > most) most = bits;
    }
    return most;
}

int main(int argc, char **argv) {
    printf("file\tband\tentropy_bits\tlevel1_bytes\tlevel6_bytes\tauto_level\n");
    for (int a = 1; a < argc; a++) {
        FILE *f = fopen(argv[a], "rb");
        uint8_t h[33];
        if (f == NULL || fread(h, 1, 33, f) != 33) return 2;
        fclose(f);
        ck_png_read_request r;
        memset(&r, 0, sizeof r);
        r.width = (uint32_t)h[16] << 24 | h[17] << 16 | h[18] << 8 | h[19];
        r.height = (uint32_t)h[20] << 24 | h[21] << 16 | h[22] << 8 | h[23];
        r.bit_depth = h[24], r.color_type = h[25], r.interlaced = h[28];
        size_t bpp = r.color_type == 2 ? 3 : r.color_type == 6 ? 4 : r.color_type == 4 ? 2 : 1;
        if (r.bit_depth != 8 || r.color_type == 3) {
            fprintf(stderr, "%s: skipped (not 8-bit gray or true colour)\n", argv[a]);
            continue;
        }
        r.crop_width = r.width, r.crop_height = r.height;
        r.max_width = r.max_height = 1000000, r.max_allocation = (size_t)1 << 32;
        size_t row_bytes = r.width * bpp, stride = row_bytes + 1;
        uint8_t *pixels = malloc(row_bytes * r.height), *filtered = malloc(stride * r.height);
        uint8_t *scratch = malloc(row_bytes * 4 + 1), *zeros = calloc(row_bytes, 1);
        r.pixels = pixels, r.pixels_size = row_bytes * r.height;
        // The reader takes the bytes by position, as cropkit hands them over.
        int fd = open(argv[a], O_RDONLY);
        struct stat info;
        if (fd < 0 || fstat(fd, &info) != 0) return 2;
        ck_input input = {.descriptor = fd, .bytes = NULL, .size = (uint64_t)info.st_size};
        int status = ck_png_read_crop(&input, &r);
        close(fd);
        if (status != CK_STATUS_OK) return 2;
        for (uint32_t y = 0; y < r.height; y++)
            filtered[y * stride] = ck_png_filter_row(pixels + y * row_bytes, y ? pixels + (y - 1) * row_bytes : zeros,
                                                     row_bytes, bpp, filtered + y * stride + 1, scratch);
        // Eight bands, within PNGEncoder's band limits.
        size_t target = stride * r.height / 8;
        if (target < ((size_t)64 << 10)) target = (size_t)64 << 10;
        if (target > ((size_t)2 << 20)) target = (size_t)2 << 20;
        size_t band_rows = target / stride ? target / stride : 1;
        struct libdeflate_compressor *one = ck_deflate_alloc(1), *six = ck_deflate_alloc(6);
        uint8_t *out = malloc(ck_deflate_bound(six, band_rows * stride));
        for (size_t y = 0, band = 0; y < r.height; y += band_rows, band++) {
            size_t count = r.height - y < band_rows ? r.height - y : band_rows;
            const uint8_t *rows = filtered + y * stride;
            size_t n = count * stride;
            size_t s1 = ck_deflate_compress(one, rows, n, out, ck_deflate_bound(one, n));
            size_t s6 = ck_deflate_compress(six, rows, n, out, ck_deflate_bound(six, n));
            printf("%s\t%zu\t%.3f\t%zu\t%zu\t%d\n", argv[a], band, noisiest(rows, count, row_bytes, bpp), s1, s6,
                   ck_stream_automatic_level(rows, count, row_bytes, bpp));
        }
        free(pixels), free(filtered), free(scratch), free(zeros), free(out);
        ck_deflate_free(one), ck_deflate_free(six);
    }
    return 0;
}
