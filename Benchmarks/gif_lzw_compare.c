/* GIF LZW decoding: giflib (libgif.so.7, Debian's libgif7, loaded at run
 * time: its header is not installed) decoding every frame of a GIF with
 * DGifSlurp, the median of RUNS runs in one process. Benchmarks/run-gif-lzw
 * sets it beside CropKit decoding and compositing the same frames
 * (`cropkit crop --frame LAST`), to decide between giflib and CropKit's own
 * codec (Sources/CropImaging/Formats/Animation/GIFLZW.swift).
 *   gcc -O2 -o gif_lzw_compare gif_lzw_compare.c -ldl
 *   gif_lzw_compare FILE [RUNS]                  prints: median seconds */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef void *(*open_fn)(const char *, int *);
typedef int (*slurp_fn)(void *);
typedef int (*close_fn)(void *, int *);

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: %s FILE [RUNS]\n", argv[0]); return 64; }
    int runs = argc > 2 ? atoi(argv[2]) : 9;
    if (runs < 1 || runs > 1000) runs = 9;
    void *lib = dlopen("libgif.so.7", RTLD_NOW);
    if (!lib) { fprintf(stderr, "libgif.so.7 not found: apt install libgif7\n"); return 2; }
    open_fn gif_open = (open_fn)dlsym(lib, "DGifOpenFileName");
    slurp_fn gif_slurp = (slurp_fn)dlsym(lib, "DGifSlurp");
    close_fn gif_close = (close_fn)dlsym(lib, "DGifCloseFile");
    if (!gif_open || !gif_slurp || !gif_close) { fprintf(stderr, "giflib lacks a function\n"); return 2; }
    double times[1000];
    for (int run = 0; run < runs; run++) {
        struct timespec start, end;
        clock_gettime(CLOCK_MONOTONIC, &start);
        int error = 0;
        void *gif = gif_open(argv[1], &error);
        if (!gif) { fprintf(stderr, "DGifOpenFileName failed: %d\n", error); return 2; }
        if (gif_slurp(gif) != 1) { fprintf(stderr, "DGifSlurp failed\n"); return 2; }
        gif_close(gif, &error);
        clock_gettime(CLOCK_MONOTONIC, &end);
        times[run] = (end.tv_sec - start.tv_sec) + (end.tv_nsec - start.tv_nsec) / 1e9;
    }
    qsort(times, runs, sizeof times[0], compare);
    printf("%.4f\n", times[runs / 2]);
    return 0;
}
