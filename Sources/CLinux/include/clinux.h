/*
 * clinux.h — the Linux calls turnstiled's event loop needs that Swift's Glibc module does not
 * export (they sit behind _GNU_SOURCE or in headers it leaves out): ppoll, and standard
 * output's buffering.
 */
#ifndef CLINUX_H
#define CLINUX_H

#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <time.h>

/* ppoll(2): poll with a nanosecond timeout; `timeout` NULL waits without limit. */
int clinux_ppoll(struct pollfd *fds, unsigned long nfds, const struct timespec *timeout);

/* Flushes standard output; returns 0, or the errno of a write that failed since the start. */
int clinux_flush_stdout(void);

/* Makes standard output line-buffered, even into a pipe. */
void clinux_line_buffer_stdout(void);

#endif
