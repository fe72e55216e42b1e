// Starting the disk write of a file's bytes early, so that the fsync before
// the atomic rename has less left to wait for.
#ifdef __linux__
#define _GNU_SOURCE
#include <fcntl.h>
#endif

#include "CImagingShims.h"

void ck_start_writeback(int descriptor, int64_t offset, int64_t count) {
#ifdef __linux__
    // Asynchronous: queues the range for writeback and returns. Errors are
    // ignored here; fsync reports them.
    (void)sync_file_range(descriptor, offset, count, SYNC_FILE_RANGE_WRITE);
#else
    (void)descriptor;
    (void)offset;
    (void)count;
#endif
}
