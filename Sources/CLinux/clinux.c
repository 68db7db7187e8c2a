#define _GNU_SOURCE
#include "clinux.h"
#include <sys/signalfd.h>
#include <pthread.h>
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

int clinux_ppoll(struct pollfd *fds, unsigned long nfds, const struct timespec *timeout)
{
    return ppoll(fds, (nfds_t)nfds, timeout, NULL);
}

int clinux_signalfd(const sigset_t *mask)
{
    return signalfd(-1, mask, SFD_CLOEXEC | SFD_NONBLOCK);
}

int clinux_signalfd_read(int fd)
{
    struct signalfd_siginfo info;
    ssize_t n = read(fd, &info, sizeof(info));
    if (n != (ssize_t)sizeof(info))
        return -1;
    return (int)info.ssi_signo;
}

int clinux_block_signals(const int *signals, sigset_t *mask)
{
    sigemptyset(mask);
    for (const int *signal = signals; *signal; signal++)
        sigaddset(mask, *signal);
    return pthread_sigmask(SIG_BLOCK, mask, NULL);
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
