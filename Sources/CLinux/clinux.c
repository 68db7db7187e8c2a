#define _GNU_SOURCE
#include "clinux.h"
#include <errno.h>
#include <stdio.h>
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
