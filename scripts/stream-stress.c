// Stress test of ck_stream (Sources/CImagingShims/png_stream.c) for data
// races and lost bands, built with ThreadSanitizer by scripts/stream-stress:
// a producer thread plays the decoder, reporting rows one at a time (with
// random pauses), while the stream's workers compress; every run's output
// must decode (zlib) to exactly the filtered rows, and abandoned runs must
// end cleanly. Random images, band sizes, thread counts and levels.
//   stream-stress [RUNS] [SEED]
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "CImagingShims.h"

typedef struct {
    uint8_t *bytes;
    size_t size, capacity;
    int fail_after;  // fail the Nth write (0: never)
    int writes;
} sink;

static int sink_write(void *context, const uint8_t *data, size_t size) {
    sink *s = context;
    s->writes += 1;
    if (s->fail_after && s->writes == s->fail_after) return 1;
    if (s->size + size > s->capacity) {
        s->capacity = (s->size + size) * 2;
        s->bytes = realloc(s->bytes, s->capacity);
    }
    memcpy(s->bytes + s->size, data, size);
    s->size += size;
    return 0;
}

typedef struct {
    ck_stream *stream;
    uint32_t height, stop_at;
    unsigned seed;
} producer;

static void *produce(void *argument) {
    producer *p = argument;
    for (uint32_t y = 1; y <= p->height && y <= p->stop_at; y++) {
        if (rand_r(&p->seed) % 64 == 0) usleep(rand_r(&p->seed) % 200);
        ck_stream_rows_ready(p->stream, y);
    }
    return NULL;
}

static uint32_t rng(unsigned *seed) { return (uint32_t)rand_r(seed); }

int main(int argc, char **argv) {
    int runs = argc > 1 ? atoi(argv[1]) : 200;
    unsigned seed = argc > 2 ? (unsigned)atoi(argv[2]) : 1;
    if (!ck_libdeflate_available()) {
        printf("stream-stress: skipped: libdeflate not installed\n");
        return 0;
    }
    int bad = 0, abandoned = 0, failed_writes = 0;
    for (int run = 0; run < runs; run++) {
        uint32_t width = 1 + rng(&seed) % 300, height = 1 + rng(&seed) % 300;
        size_t bpp = 1 + rng(&seed) % 4, row_bytes = width * bpp;
        uint8_t *pixels = malloc(row_bytes * height);
        int kind = rng(&seed) % 3;
        for (size_t i = 0; i < row_bytes * height; i++)
            pixels[i] = kind == 0 ? (uint8_t)rng(&seed) : kind == 1 ? (uint8_t)(i / 7) : (uint8_t)(i % 5 * (rng(&seed) % 2));
        sink out = {0};
        int mode = rng(&seed) % 10;  // 0: abandon midway, 1: a write fails, else complete
        if (mode == 1) out.fail_after = 1 + rng(&seed) % 4;
        ck_stream_config config = {.pixels = pixels, .row_bytes = row_bytes, .height = height, .bpp = bpp,
                                   .filter = rng(&seed) % 4 != 0, .level = (int)(rng(&seed) % 3) * 3,
                                   .threads = 1 + rng(&seed) % 4, .band_rows = 1 + rng(&seed) % 40,
                                   .write = sink_write, .context = &out};
        ck_stream *stream = ck_stream_start(&config);
        if (stream == NULL) {
            printf("run %d: ck_stream_start failed\n", run);
            bad++;
            free(pixels);
            continue;
        }
        producer p = {.stream = stream, .height = height, .stop_at = mode == 0 ? height / 2 : height,
                      .seed = seed + (unsigned)run};
        pthread_t thread;
        pthread_create(&thread, NULL, produce, &p);
        pthread_join(thread, NULL);
        size_t written = 0;
        int status = ck_stream_finish(stream, mode == 0, &written, NULL);
        if (mode == 0) {
            abandoned++;
            if (status == CK_STATUS_OK) {
                printf("run %d: an abandoned stream reported success\n", run);
                bad++;
            }
        } else if (mode == 1 && out.fail_after <= out.writes) {
            failed_writes++;
            if (status == CK_STATUS_OK) {
                printf("run %d: a failed write reported success\n", run);
                bad++;
            }
        } else if (status != CK_STATUS_OK || written != out.size) {
            printf("run %d: status %d, %zu of %zu bytes\n", run, status, written, out.size);
            bad++;
        } else {
            // Join the IDAT chunks' data and inflate it.
            size_t stride = row_bytes + 1, expected = stride * height, offset = 0, joined = 0;
            uint8_t *stream_bytes = malloc(out.size), *inflated = malloc(expected + 1);
            while (offset + 12 <= out.size) {
                size_t length = (size_t)out.bytes[offset] << 24 | out.bytes[offset + 1] << 16 |
                                out.bytes[offset + 2] << 8 | out.bytes[offset + 3];
                if (memcmp(out.bytes + offset + 4, "IDAT", 4) != 0 ||
                    crc32(crc32(0, NULL, 0), out.bytes + offset + 4, (uInt)(length + 4)) !=
                        ((uLong)out.bytes[offset + 8 + length] << 24 | out.bytes[offset + 9 + length] << 16 |
                         out.bytes[offset + 10 + length] << 8 | out.bytes[offset + 11 + length])) {
                    printf("run %d: a bad IDAT chunk\n", run);
                    bad++;
                    break;
                }
                memcpy(stream_bytes + joined, out.bytes + offset + 8, length);
                joined += length;
                offset += 12 + length;
            }
            uLongf size = (uLongf)expected + 1;
            int z = uncompress(inflated, &size, stream_bytes, (uLong)joined);
            // The rows, unfiltered back, must be the pixels.
            int same = z == Z_OK && size == expected;
            for (uint32_t y = 0; same && y < height; y++) {
                uint8_t *row = inflated + y * stride;
                uint8_t type = row[0];
                uint8_t *data = row + 1;
                const uint8_t *prior = y ? inflated + (y - 1) * stride + 1 : NULL;
                for (size_t i = 0; i < row_bytes; i++) {
                    int a = i >= bpp ? data[i - bpp] : 0, b = prior ? prior[i] : 0,
                        c = prior && i >= bpp ? prior[i - bpp] : 0;
                    int predictor = 0;
                    if (type == 1) predictor = a;
                    if (type == 2) predictor = b;
                    if (type == 3) predictor = (a + b) / 2;
                    if (type == 4) {
                        int pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c);
                        predictor = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
                    }
                    data[i] = (uint8_t)(data[i] + predictor);
                }
                if (memcmp(data, pixels + y * row_bytes, row_bytes) != 0) same = 0;
            }
            if (!same) {
                printf("run %d: %ux%u bpp %zu: the stream does not decode to the pixels (zlib %d)\n", run, width,
                       height, bpp, z);
                bad++;
            }
            free(stream_bytes);
            free(inflated);
        }
        free(out.bytes);
        free(pixels);
    }
    printf("stream-stress: %d runs (%d abandoned, %d with a failed write), %d bad\n", runs, abandoned, failed_writes,
           bad);
    return bad != 0;
}
