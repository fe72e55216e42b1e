// The floor of re-encoding a HEIC crop's edge tiles: the tiles of a grid
// HEIC (the tiles an off-grid avatar touches, written by
// `cropkit crop --snap-to-blocks`) decoded once, untimed, then each tile's
// planes encoded by libheif's x265 with cropkit's parameters and quality,
// timed: one after another, then side by side on N threads (one encoder
// each), as cropkit does. No Swift, no file writing: what the encoder alone
// costs. The dlopen, the grid's read and decode, and the first encode (x265's
// set-up) are timed apart: with them, the whole floor of the one-image
// layout. dlopen of libheif.so.1, its ABI declared here.
//   cropkit crop pug.heic --pixels 1866,1362,300,300 --snap-to-blocks -o four.heic
//   gcc -O2 -o x265_tile_floor Benchmarks/x265_tile_floor.c -ldl -lpthread
//   ./x265_tile_floor four.heic 512 512 2 80 330 338 300 300
//   ./x265_tile_floor four.heic 512 512 [threads] [quality] [x y w h]
// With a rect (on the grid), every sample beyond it is replaced by the
// rect's nearest edge sample first, as cropkit does to an edge tile; with
// "one" after it, the rect alone (even-sized) is encoded as one image
// instead: the layout a crop with no tile to copy could take.
// A measuring probe for Benchmarks/RESULTS.md, not part of CropKit.
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct herr { int code, subcode; const char *message; };
typedef void *(*alloc_fn)(void);
typedef void (*free_fn)(void *);
typedef struct herr (*read_fn)(void *, const char *, const void *);
typedef struct herr (*primary_fn)(void *, void **);
typedef struct herr (*decode_fn)(void *, void **, int, int, const void *);
typedef const uint8_t *(*plane_ro_fn)(const void *, int, int *);
typedef struct herr (*create_fn)(int, int, int, int, void **);
typedef struct herr (*add_plane_fn)(void *, int, int, int, int);
typedef uint8_t *(*plane_fn)(void *, int, int *);
typedef struct herr (*encoder_fn)(void *, int, void **);
typedef struct herr (*int_fn)(void *, int);
typedef struct herr (*param_fn)(void *, const char *, const char *);
typedef struct herr (*encode_fn)(void *, const void *, void *, const void *, void **);

static alloc_fn context_alloc;
static free_fn context_free, image_release, handle_release, encoder_release;
static read_fn read_file;
static primary_fn primary;
static decode_fn decode;
static plane_ro_fn plane_ro;
static int (*image_width)(const void *, int), (*image_height)(const void *, int);
static create_fn image_create;
static add_plane_fn add_plane;
static plane_fn plane_rw;
static encoder_fn get_encoder;
static int_fn set_quality;
static param_fn set_parameter;
static encode_fn encode_image;

static const char *parameters[][2] = {
    {"preset", "ultrafast"}, {"tu-intra-depth", "1"}, {"x265:rd", "1"}, {"x265:pools", "1"}, {"x265:frame-threads", "1"}};
static int tile_w, tile_h, tiles, quality = 80;
static uint8_t *tile_planes[64][3];

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void encode_tile(int n) {
    void *context = context_alloc(), *image = NULL, *encoder = NULL, *handle = NULL;
    image_create(tile_w, tile_h, 0 /* YCbCr */, 1 /* 4:2:0 */, &image);
    for (int c = 0; c < 3; c++) {
        int w = c ? tile_w / 2 : tile_w, h = c ? tile_h / 2 : tile_h, stride;
        add_plane(image, c, w, h, 8);
        uint8_t *to = plane_rw(image, c, &stride);
        for (int y = 0; y < h; y++) memcpy(to + (size_t)y * stride, tile_planes[n][c] + (size_t)y * w, w);
    }
    get_encoder(context, 1 /* HEVC */, &encoder);
    set_quality(encoder, quality);
    for (size_t i = 0; i < sizeof parameters / sizeof parameters[0]; i++)
        set_parameter(encoder, parameters[i][0], parameters[i][1]);
    struct herr e = encode_image(context, image, encoder, NULL, &handle);
    if (e.code) fprintf(stderr, "encode: %s\n", e.message);
    handle_release(handle);
    encoder_release(encoder);
    image_release(image);
    context_free(context);
}

static int next_tile;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static void *worker(void *unused) {
    (void)unused;
    for (;;) {
        pthread_mutex_lock(&lock);
        int n = next_tile++;
        pthread_mutex_unlock(&lock);
        if (n >= tiles) return NULL;
        encode_tile(n);
    }
}

int main(int argc, char **argv) {
    if (argc < 4) return fprintf(stderr, "usage: %s GRID.heic TILE_W TILE_H [threads] [quality]\n", argv[0]), 2;
    tile_w = atoi(argv[2]);
    tile_h = atoi(argv[3]);
    int threads = argc > 4 ? atoi(argv[4]) : 2;
    if (argc > 5) quality = atoi(argv[5]);
    double loading = now();
    void *lib = dlopen("libheif.so.1", RTLD_NOW);
    if (!lib) return fprintf(stderr, "no libheif.so.1\n"), 1;
#define SYM(v, name) *(void **)(&v) = dlsym(lib, name)
    SYM(context_alloc, "heif_context_alloc"); SYM(context_free, "heif_context_free");
    SYM(read_file, "heif_context_read_from_file"); SYM(primary, "heif_context_get_primary_image_handle");
    SYM(decode, "heif_decode_image"); SYM(plane_ro, "heif_image_get_plane_readonly");
    SYM(image_width, "heif_image_get_width"); SYM(image_height, "heif_image_get_height");
    SYM(image_release, "heif_image_release"); SYM(handle_release, "heif_image_handle_release");
    SYM(image_create, "heif_image_create"); SYM(add_plane, "heif_image_add_plane");
    SYM(plane_rw, "heif_image_get_plane"); SYM(get_encoder, "heif_context_get_encoder_for_format");
    SYM(encoder_release, "heif_encoder_release"); SYM(set_quality, "heif_encoder_set_lossy_quality");
    SYM(set_parameter, "heif_encoder_set_parameter"); SYM(encode_image, "heif_context_encode_image");
    double start = now();
    void *context = context_alloc(), *handle = NULL, *image = NULL;
    struct herr e = read_file(context, argv[1], NULL);
    if (!e.code) e = primary(context, &handle);
    if (!e.code) e = decode(handle, &image, 0 /* YCbCr */, 1 /* 4:2:0 */, NULL);
    if (e.code) return fprintf(stderr, "%s: %s\n", argv[1], e.message), 1;
    double decoded = now();
    int stride[3];
    const uint8_t *planes[3];
    for (int c = 0; c < 3; c++) planes[c] = plane_ro(image, c, &stride[c]);
    // The grid's tiles, in raster order (the avatar's 2x2), as many whole
    // tiles as the decoded image holds.
    int columns = image_width(image, 0) / tile_w, rows = image_height(image, 0) / tile_h;
    if (columns < 1 || rows < 1 || columns * rows > 64)
        return fprintf(stderr, "%s: not a grid of %dx%d tiles\n", argv[1], tile_w, tile_h), 1;
    tiles = columns * rows;
    int rect[4] = {0, 0, columns * tile_w, rows * tile_h};
    if (argc > 9)
        for (int i = 0; i < 4; i++) rect[i] = atoi(argv[6 + i]);
    for (int n = 0; n < tiles; n++)
        for (int c = 0; c < 3; c++) {
            int d = c ? 2 : 1, w = tile_w / d, h = tile_h / d;
            int x0 = (n % columns) * w, y0 = (n / columns) * h;
            int kx0 = rect[0] / d, ky0 = rect[1] / d;
            int kx1 = (rect[0] + rect[2] + d - 1) / d - 1, ky1 = (rect[1] + rect[3] + d - 1) / d - 1;
            tile_planes[n][c] = malloc((size_t)w * h);
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++) {
                    int sx = x0 + x < kx0 ? kx0 : x0 + x > kx1 ? kx1 : x0 + x;
                    int sy = y0 + y < ky0 ? ky0 : y0 + y > ky1 ? ky1 : y0 + y;
                    tile_planes[n][c][(size_t)y * w + x] = planes[c][(size_t)sy * stride[c] + sx];
                }
        }
    if (argc > 10 && !strcmp(argv[10], "one")) {
        // One image of the rect alone, its size rounded up to even.
        int w = (rect[2] + 1) & ~1, h = (rect[3] + 1) & ~1;
        for (int c = 0; c < 3; c++) {
            int d = c ? 2 : 1, pw = w / d, ph = h / d;
            uint8_t *one = malloc((size_t)pw * ph);
            for (int y = 0; y < ph; y++)
                for (int x = 0; x < pw; x++) {
                    int sx = rect[0] / d + x, sy = rect[1] / d + y;
                    int mx = (rect[0] + rect[2] + d - 1) / d - 1, my = (rect[1] + rect[3] + d - 1) / d - 1;
                    one[(size_t)y * pw + x] = planes[c][(size_t)(sy > my ? my : sy) * stride[c] + (sx > mx ? mx : sx)];
                }
            tile_planes[0][c] = one;
        }
        tile_w = w;
        tile_h = h;
        tiles = 1;
    }
    double first = now();
    encode_tile(0); // x265's and libheif's first-use set-up, timed apart
    double a = now();
    printf("dlopen of libheif: %.1f ms; read and decode of the grid (libheif's threads): %.1f ms; "
           "first encode, set-up included: %.1f ms\n",
           start - loading, decoded - start, a - first);
    for (int n = 0; n < tiles; n++) encode_tile(n);
    double b = now();
    pthread_t pool[16];
    next_tile = 0;
    for (int t = 0; t < threads; t++) pthread_create(&pool[t], NULL, worker, NULL);
    for (int t = 0; t < threads; t++) pthread_join(pool[t], NULL);
    double c = now();
    printf("%d tiles of %dx%d at quality %d: one after another %.1f ms (%.1f ms a tile); on %d threads %.1f ms\n",
           tiles, tile_w, tile_h, quality, b - a, (b - a) / tiles, threads, c - b);
    return 0;
}
