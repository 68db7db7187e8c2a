#define _GNU_SOURCE
#include "clinux.h"
#include <errno.h>
#include <stdio.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

int clinux_ppoll(struct pollfd *fds, unsigned long nfds, const struct timespec *timeout)
{
    return ppoll(fds, (nfds_t)nfds, timeout, NULL);
}

void clinux_line_buffer_stdout(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
}

int clinux_flush_stdout(void)
{
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout))
        return errno ? errno : EIO;
    return 0;
}

int clinux_futex_wait(uint32_t *word, uint32_t expected)
{
    if (syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0) == 0)
        return 0;
    return errno;
}

int clinux_futex_wait_timeout(uint32_t *word, uint32_t expected, int64_t nanoseconds)
{
    struct timespec timeout = { .tv_sec = nanoseconds / 1000000000, .tv_nsec = nanoseconds % 1000000000 };
    if (syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, expected, &timeout, NULL, 0) == 0)
        return 0;
    return errno;
}

int clinux_futex_wake(uint32_t *word, int count)
{
    long woken = syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, count, NULL, NULL, 0);
    return woken < 0 ? -errno : (int)woken;
}
