// The little C runtime the playground's Embedded Swift module links
// against in WebAssembly, where there is no libc: memory allocation, the
// memory functions, fmod (Swift's truncatingRemainder) and the 128-bit
// multiply the compiler calls. Nothing here is in the mapping contract.

#include <stddef.h>
#include <stdint.h>

#define PAGE 65536u

// Blocks of power-of-two sizes (32 bytes to 2 GiB), each with a 16-byte
// header holding its size class, kept on one free list per class: freed
// blocks are reused, so a long run of calls does not grow the memory.
typedef struct Block { struct Block *next; } Block;
static Block *freeLists[32];
static uintptr_t heapEnd, heapLimit;
extern unsigned char __heap_base;

static void *grow(size_t bytes) {
    if (heapEnd == 0) {
        heapEnd = ((uintptr_t)&__heap_base + 15) & ~(uintptr_t)15;
        heapLimit = __builtin_wasm_memory_size(0) * PAGE;
    }
    if (bytes > heapLimit - heapEnd) {
        size_t pages = (bytes - (heapLimit - heapEnd) + PAGE - 1) / PAGE;
        if (__builtin_wasm_memory_grow(0, pages) == (size_t)-1) return NULL;
        heapLimit += pages * PAGE;
    }
    void *start = (void *)heapEnd;
    heapEnd += bytes;
    return start;
}

static void *allocate(size_t size) {
    unsigned cls = 5;
    while (cls < 31 && ((size_t)1 << cls) < size + 16) cls++;
    if (((size_t)1 << cls) < size + 16) return NULL;
    unsigned char *block;
    if (freeLists[cls]) {
        block = (unsigned char *)freeLists[cls];
        freeLists[cls] = freeLists[cls]->next;
    } else {
        block = grow((size_t)1 << cls);
        if (!block) return NULL;
    }
    *(uint32_t *)block = cls;
    return block + 16;
}

void *malloc(size_t size) { return allocate(size); }

void free(void *pointer) {
    if (!pointer) return;
    unsigned char *block = (unsigned char *)pointer - 16;
    unsigned cls = *(uint32_t *)block;
    ((Block *)block)->next = freeLists[cls];
    freeLists[cls] = (Block *)block;
}

int posix_memalign(void **out, size_t alignment, size_t size) {
    if (alignment > 16) return 12;  // ENOMEM: nothing here asks for more
    void *pointer = allocate(size);
    if (!pointer) return 12;
    *out = pointer;
    return 0;
}

void *memset(void *destination, int value, size_t count) {
    unsigned char *d = destination;
    while (count--) *d++ = (unsigned char)value;
    return destination;
}

void *memcpy(void *restrict destination, const void *restrict source, size_t count) {
    unsigned char *d = destination;
    const unsigned char *s = source;
    while (count--) *d++ = *s++;
    return destination;
}

void *memmove(void *destination, const void *source, size_t count) {
    unsigned char *d = destination;
    const unsigned char *s = source;
    if (d < s) {
        while (count--) *d++ = *s++;
    } else {
        d += count;
        s += count;
        while (count--) *--d = *--s;
    }
    return destination;
}

int memcmp(const void *a, const void *b, size_t count) {
    const unsigned char *x = a, *y = b;
    for (; count; count--, x++, y++)
        if (*x != *y) return *x < *y ? -1 : 1;
    return 0;
}

size_t strlen(const char *text) {
    const char *end = text;
    while (*end) end++;
    return (size_t)(end - text);
}

// The low 128 bits of a 128-bit product (the compiler's __multi3).
typedef unsigned __int128 u128;
u128 __multi3(u128 a, u128 b) {
    uint64_t al = (uint64_t)a, ah = (uint64_t)(a >> 64);
    uint64_t bl = (uint64_t)b, bh = (uint64_t)(b >> 64);
    uint64_t a0 = al & 0xffffffffu, a1 = al >> 32, b0 = bl & 0xffffffffu, b1 = bl >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t middle = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
    uint64_t low = (p00 & 0xffffffffu) | (middle << 32);
    uint64_t high = p11 + (p01 >> 32) + (p10 >> 32) + (middle >> 32);
    high += al * bh + ah * bl;
    return ((u128)high << 64) | low;
}

// 128-bit shifts by a variable count, in 64-bit halves.
u128 __ashlti3(u128 a, int count) {
    uint64_t low = (uint64_t)a, high = (uint64_t)(a >> 64);
    if (count == 0) return a;
    if (count >= 64) return (u128)(low << (count - 64)) << 64;
    return ((u128)((high << count) | (low >> (64 - count))) << 64) | (low << count);
}
u128 __lshrti3(u128 a, int count) {
    uint64_t low = (uint64_t)a, high = (uint64_t)(a >> 64);
    if (count == 0) return a;
    if (count >= 64) return high >> (count - 64);
    return ((u128)(high >> count) << 64) | ((low >> count) | (high << (64 - count)));
}

// 128-bit division, which Swift's full-width arithmetic asks for on a
// 64-bit target: shift-and-subtract, one quotient bit a step.
static u128 divide128(u128 dividend, u128 divisor, u128 *remainder) {
    u128 quotient = 0, rest = 0;
    if (divisor == 0) __builtin_trap();
    for (int bit = 127; bit >= 0; bit--) {
        rest = (rest << 1) | ((dividend >> bit) & 1);
        if (rest >= divisor) {
            rest -= divisor;
            quotient |= (u128)1 << bit;
        }
    }
    if (remainder) *remainder = rest;
    return quotient;
}

typedef __int128 i128;
u128 __udivti3(u128 a, u128 b) { return divide128(a, b, 0); }
u128 __umodti3(u128 a, u128 b) {
    u128 rest;
    divide128(a, b, &rest);
    return rest;
}
i128 __divti3(i128 a, i128 b) {
    u128 q = divide128(a < 0 ? -(u128)a : (u128)a, b < 0 ? -(u128)b : (u128)b, 0);
    return (a < 0) != (b < 0) ? -(i128)q : (i128)q;
}
i128 __modti3(i128 a, i128 b) {
    u128 rest;
    divide128(a < 0 ? -(u128)a : (u128)a, b < 0 ? -(u128)b : (u128)b, &rest);
    return a < 0 ? -(i128)rest : (i128)rest;
}

// fmod, exactly, as C defines it: the remainder of x / y with x's sign.
// Both magnitudes are written m·2^e with m a 53-bit integer; the remainder
// of m_x·2^(e_x−e_y) by m_y is taken 11 bits of shift at a time (so the
// shifted value stays below 2^64), and r·2^e_y is exact.
static uint64_t significand(double value, int *exponent) {
    union { double f; uint64_t i; } u = {value};
    int biased = (int)(u.i >> 52 & 0x7ff);
    uint64_t m = u.i & ((1ULL << 52) - 1);
    if (biased) {
        m |= 1ULL << 52;
        *exponent = biased - 1075;
    } else {
        *exponent = -1074;
        while (!(m >> 52)) { m <<= 1; (*exponent)--; }
    }
    return m;
}

double fmod(double x, double y) {
    double ax = __builtin_fabs(x), ay = __builtin_fabs(y);
    if (x != x || y != y || ax == __builtin_inf() || ay == 0) return (x * y) / (x * y);
    if (ax < ay) return x;
    int ex, ey;
    uint64_t mx = significand(ax, &ex), my = significand(ay, &ey);
    uint64_t r = mx % my;
    for (int d = ex - ey; d > 0;) {
        int k = d > 11 ? 11 : d;
        r = (r << k) % my;
        d -= k;
    }
    double v = (double)r;
    for (; ey < -1000; ey += 1000) v *= 0x1p-1000;
    union { double f; uint64_t i; } scale = {.i = (uint64_t)(ey + 1023) << 52};
    v *= scale.f;  // ey is within [-1000, 1000] here: scale is a normal double
    return __builtin_copysign(v, x);
}

// round: halfway cases away from zero (wasm's f64.nearest rounds them to
// even). x − trunc(x) is exact: below 2^52 both have the same exponent or
// the difference is small, and from 2^52 on every double is whole.
double round(double x) {
    double whole = __builtin_trunc(x);
    if (__builtin_fabs(x - whole) >= 0.5) whole += __builtin_copysign(1.0, x);
    return whole;
}

// The seed of Swift's hashing. A page has no secrets to guard from hash
// flooding, and a fixed seed makes every run the same.
void arc4random_buf(void *buffer, size_t count) {
    unsigned char *bytes = buffer;
    uint64_t state = 0x9E3779B97F4A7C15u;
    for (size_t i = 0; i < count; i++) {
        state = state * 6364136223846793005u + 1442695040888963407u;
        bytes[i] = (unsigned char)(state >> 56);
    }
}

// Swift's Double(String) calls this to read a decimal number. The page's
// script supplies the conversion (JavaScript's Number(), correctly
// rounded like the C library's strtod the command line uses); the JSON
// reader hands over only text its grammar has already checked.
__attribute__((import_module("env"), import_name("parse_double")))
extern double ck_parse_double(const char *text, size_t length);

const char *_swift_stdlib_strtod_clocale(const char *text, double *result) {
    size_t length = strlen(text);
    double value = ck_parse_double(text, length);
    if (value != value && !(length == 3 && (text[0] == 'n' || text[0] == 'N'))) return NULL;
    *result = value;
    return text + length;
}
