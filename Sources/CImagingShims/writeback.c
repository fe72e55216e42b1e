// Starting the disk write of a file's bytes early, so that the fsync before
// the atomic rename has less left to wait for; and files with no name until
// they are complete (Linux's O_TMPFILE).
#ifdef __linux__
#define _GNU_SOURCE
#include <fcntl.h>
#endif

#include "CImagingShims.h"

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

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

int ck_open_unnamed(const char *folder, int mode) {
#if defined(__linux__) && defined(O_TMPFILE)
    return open(folder, O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
#else
    (void)folder;
    (void)mode;
    errno = EOPNOTSUPP;
    return -1;
#endif
}

int ck_link_unnamed(int descriptor, const char *path) {
#if defined(__linux__)
    // AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH; the descriptor's /proc entry
    // does the same for anyone.
    if (linkat(descriptor, "", AT_FDCWD, path, AT_EMPTY_PATH) == 0) return 0;
    if (errno == EEXIST) return -1;
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", descriptor);
    return linkat(AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW);
#else
    (void)descriptor;
    (void)path;
    errno = EOPNOTSUPP;
    return -1;
#endif
}
