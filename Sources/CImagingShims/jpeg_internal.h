// What CropKit's libjpeg readers and writers share: the error manager that
// turns libjpeg's errors (and, unless lenient, its warnings) into a longjmp
// with a message, and the data source that reads an input by position.
#ifndef CK_JPEG_INTERNAL_H
#define CK_JPEG_INTERNAL_H

#include "CImagingShims.h"

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

#endif
