// The bytes of one opened image, read by position: a descriptor through
// pread(2) (so any number of readers, on any thread, share it without a
// shared file offset), or bytes already in memory.
#include "CImagingShims.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

long ck_input_read(const ck_input *input, uint64_t offset, uint8_t *buffer, size_t count) {
    if (offset >= input->size) return 0;
    if (count > input->size - offset) count = (size_t)(input->size - offset);
    if (input->bytes != NULL) {
        memcpy(buffer, input->bytes + offset, count);
        return (long)count;
    }
    size_t done = 0;
    while (done < count) {
        ssize_t got = pread(input->descriptor, buffer + done, count - done, (off_t)(offset + done));
        if (got < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        if (got == 0) break;
        done += (size_t)got;
    }
    return (long)done;
}
