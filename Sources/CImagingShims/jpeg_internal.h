// What CropKit's libjpeg readers and writers share: the error manager that
// turns libjpeg's errors (and, unless lenient, its warnings) into a longjmp
// with a message, and the data source that reads an input by position.
#ifndef CK_JPEG_INTERNAL_H
#define CK_JPEG_INTERNAL_H

// sched_getaffinity and CPU_COUNT (glibc), before any system header.
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE
#endif

#include "CImagingShims.h"

#include <sched.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdio.h>
// jpeglib.h needs FILE and size_t declared before it.
#include <jpeglib.h>
// After jpeglib.h: ERREXIT and WARNMS, and the message codes.
#include <jerror.h>

typedef struct {
    struct jpeg_error_mgr manager;
    jmp_buf jump;
    /// Where the first error or warning is described.
    char *message;
    size_t message_size;
    /// Counts libjpeg's warnings (corrupt data it stepped over).
    int *warnings;
    /// Whether warnings are tolerated; otherwise the first one longjmps.
    int lenient;
    /// Whether the error was libjpeg running out of the memory it may take
    /// (`max_memory_to_use`, CropKit's budget) or of memory at all: a limit,
    /// not corrupt data.
    int out_of_memory;
} ck_jpeg_error;

/// The cores this process may run on (its affinity mask, which `taskset`
/// narrows; the online count elsewhere): the JPEG entropy coder's threads
/// are only worth starting with a second.
static inline int ck_usable_cores(void) {
#if defined(__linux__)
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
#endif
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? (int)online : 1;
}

/// `status`, or CK_STATUS_OUT_OF_MEMORY when the error that jumped was
/// libjpeg's out of memory ("Insufficient memory", "Backing store not
/// supported": the budget was reached).
static inline int ck_jpeg_failure(const ck_jpeg_error *error, int status) {
    return error->out_of_memory ? CK_STATUS_OUT_OF_MEMORY : status;
}

/// Points `cinfo`'s error manager at `error`; call setjmp(error->jump) next.
void ck_jpeg_install_errors(j_common_ptr cinfo, ck_jpeg_error *error, char *message, size_t message_size,
                            int *warnings, int lenient);

/// Makes `input` the data source of `cinfo`, read in 1 MiB pieces.
void ck_jpeg_use_input(j_decompress_ptr cinfo, const ck_input *input);

/// The input offset of the next byte `cinfo`'s data source hands out (after
/// jpeg_read_header: the first byte of the scan's entropy-coded data).
uint64_t ck_jpeg_input_offset(j_decompress_ptr cinfo);

/// Where the crop's blocks lie, per component: the first source block
/// column kept, how many columns and block rows are kept; the crop's first
/// and last iMCU rows.
typedef struct {
    long first_imcu_row, last_imcu_row;
    /// Whether the crop's last row is the image's: the scan's end is
    /// checked then (only padding, then a marker), as libjpeg checks it.
    int ends_image;
    /// The threads the crop's rows may be decoded on (restart intervals
    /// only): 2 splits them in two bands.
    int threads;
    JDIMENSION x_blocks[4];
    JDIMENSION count[4];
    JDIMENSION height_blocks[4];
    /// The rows of each crop array (whole iMCU rows, at least height_blocks).
    JDIMENSION array_rows[4];
    /// Without restart intervals, with two threads: whether the second
    /// decodes speculatively from the middle of the rows needed, and where
    /// it starts, in thousandths of their data (0: the default, 450, and
    /// only when they hold at least 256 KiB of data; else from 64 bytes on,
    /// for the tests and the fuzz target).
    int speculate;
    int split_permille;
    /// Without restart intervals: whether it decodes serially when it does
    /// not speculate (the controls); otherwise it declines such a file.
    int serial;
} ck_jpeg_entropy_crop;

/// Which way ck_jpeg_entropy_decode decoded (the report's `entropy`).
enum {
    ck_entropy_restart_markers = 2,
    ck_entropy_speculative = 3,
    ck_entropy_serial = 4,
};

/// Decodes the scan that starts at `scan_offset` (a baseline, 8-bit, one
/// interleaved scan of every component in frame order) down to the crop's
/// last iMCU row, storing the blocks inside the crop into `crop_arrays`
/// (realized, not pre-zeroed: it zeroes each block it stores); with
/// restart intervals it starts at the marker before the crop's first row;
/// without them it decodes from the scan's start, speculatively on a second
/// thread too when `crop->speculate`. Returns how it decoded (ck_entropy_*),
/// or 0 when the file is not one it decodes or its data is not as it
/// expects (the caller falls back to libjpeg-turbo, with the arrays
/// discarded).
int ck_jpeg_entropy_decode(j_decompress_ptr cinfo, uint64_t scan_offset, const ck_input *input,
                           const ck_jpeg_entropy_crop *crop, jvirt_barray_ptr *crop_arrays);

/// Writes the lossless crop's file as libjpeg-turbo's jpeg_write_coefficients
/// and jpeg_finish_compress would for `output` (set up with
/// jpeg_copy_critical_parameters; one sequential Huffman scan, tables
/// optimized), byte for byte, from the blocks in `arrays` (of `source`'s
/// memory manager): SOI, the whole segments of `markers`, DQT, SOF, DHT,
/// DRI, SOS, the scan, EOI. The statistics and the scan are each done in
/// two bands side by side when `threads` is 2. Returns 1 when written; 0
/// when it does not encode this output (nothing written: progressive,
/// arithmetic or 12-bit coding, a coefficient libjpeg-turbo refuses, no
/// memory), for libjpeg-turbo to do it; -1 when a write failed.
int ck_jpeg_huffman_write(j_decompress_ptr source, j_compress_ptr output, jvirt_barray_ptr *arrays, int threads,
                          const uint8_t *markers, size_t markers_size, ck_write_fn write, void *context);

#endif
