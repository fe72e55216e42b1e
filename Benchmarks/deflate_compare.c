// Compares ISA-L's deflate (levels 0-3) with libdeflate's low levels on the
// filtered rows of real photo crops, as CropKit's encoder filters them:
// bytes and single-thread time for each. Built and run by
// Benchmarks/run-deflate-compare (needs libisal-dev for the header).
//   deflate_compare FILE.png...
#include <isa-l/igzip_lib.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../Sources/CImagingShims/deflate_internal.h"
#include "CImagingShims.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    printf("| file | raw filtered bytes | compressor | bytes | ratio to libdeflate 6 | ms (best of 5) |\n");
    printf("| --- | --- | --- | --- | --- | --- |\n");
    for (int a = 1; a < argc; a++) {
        int fd = open(argv[a], O_RDONLY);
        struct stat info;
        if (fd < 0 || fstat(fd, &info) != 0) return 2;
        ck_input input = {.descriptor = fd, .bytes = NULL, .size = (uint64_t)info.st_size};
        uint8_t head[33];
        if (pread(fd, head, sizeof head, 0) != sizeof head) return 2;
        ck_png_read_request r;
        memset(&r, 0, sizeof r);
        r.width = (uint32_t)head[16] << 24 | head[17] << 16 | head[18] << 8 | head[19];
        r.height = (uint32_t)head[20] << 24 | head[21] << 16 | head[22] << 8 | head[23];
        r.bit_depth = head[24];
        r.color_type = head[25];
        int channels = r.color_type == 6 ? 4 : r.color_type == 2 ? 3 : r.color_type == 4 ? 2 : 1;
        size_t bpp = (size_t)channels, row_bytes = r.width * bpp;
        r.crop_width = r.width, r.crop_height = r.height, r.max_width = r.max_height = 1000000;
        r.max_allocation = (size_t)1 << 32;
        r.pixels_size = row_bytes * r.height;
        r.pixels = malloc(r.pixels_size);
        if (ck_png_read_crop(&input, &r) != CK_STATUS_OK) return 2;
        close(fd);
        size_t size = (row_bytes + 1) * r.height;
        uint8_t *filtered = malloc(size), *scratch = malloc(row_bytes * 4), *zeros = calloc(1, row_bytes);
        for (uint32_t y = 0; y < r.height; y++) {
            const uint8_t *row = r.pixels + y * row_bytes;
            filtered[y * (row_bytes + 1)] =
                ck_png_filter_row(row, y ? row - row_bytes : zeros, row_bytes, bpp, filtered + y * (row_bytes + 1) + 1,
                                  scratch);
        }
        size_t cap = size + size / 8 + 4096;
        uint8_t *out = malloc(cap);
        size_t reference = 0;
        struct { const char *name; int isal; int level; } runs[] = {
            {"libdeflate 6", 0, 6}, {"libdeflate 1", 0, 1}, {"libdeflate 2", 0, 2}, {"libdeflate 3", 0, 3},
            {"ISA-L 0", 1, 0}, {"ISA-L 1", 1, 1}, {"ISA-L 2", 1, 2}, {"ISA-L 3", 1, 3},
        };
        for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++) {
            double best = 1e9;
            size_t bytes = 0;
            for (int rep = 0; rep < 5; rep++) {
                double t0 = now();
                if (runs[k].isal) {
                    struct isal_zstream stream;
                    isal_deflate_stateless_init(&stream);
                    static uint8_t level_buf[ISAL_DEF_LVL3_LARGE];
                    stream.level = (uint32_t)runs[k].level;
                    stream.level_buf = level_buf;
                    stream.level_buf_size = sizeof level_buf;
                    stream.end_of_stream = 1;
                    stream.next_in = filtered;
                    stream.avail_in = (uint32_t)size;
                    stream.next_out = out;
                    stream.avail_out = (uint32_t)cap;
                    if (isal_deflate_stateless(&stream) != COMP_OK) return 3;
                    bytes = stream.total_out;
                } else {
                    struct libdeflate_compressor *c = ck_deflate_alloc(runs[k].level);
                    bytes = ck_deflate_compress(c, filtered, size, out, cap);
                    ck_deflate_free(c);
                }
                double t = now() - t0;
                if (t < best) best = t;
            }
            if (k == 0) reference = bytes;
            const char *name = strrchr(argv[a], '/');
            printf("| %s | %zu | %s | %zu | %.3f | %.1f |\n", name ? name + 1 : argv[a], size, runs[k].name, bytes,
                   (double)bytes / (double)reference, best * 1000);
        }
    }
    return 0;
}
