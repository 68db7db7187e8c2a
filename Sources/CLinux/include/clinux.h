/*
 * clinux.h — the Linux calls that Swift's Glibc module does not export (they sit behind
 * _GNU_SOURCE, in headers it leaves out, or behind the variadic syscall(2)): the futex the
 * runtime's lock sleeps on, the eventfd its event loops are woken through, and for turnstiled's
 * event loop ppoll and standard output's buffering; for the checks, a pipe and a spawn that leak nothing.
 */
#ifndef CLINUX_H
#define CLINUX_H

#include <poll.h>
#include <spawn.h>
#include <signal.h>
#include <stdint.h>
#include <time.h>

/* ppoll(2): poll with a nanosecond timeout; `timeout` NULL waits without limit. */
int clinux_ppoll(struct pollfd *fds, unsigned long nfds, const struct timespec *timeout);

/* pthread_setname_np(3) on the calling thread: the name `ps -L` and `top -H` show, at most 15
 * bytes (a longer one is refused with ERANGE). Returns 0 or the error. */
int clinux_thread_set_name(const char *name);

/* Flushes standard output; returns 0, or the errno of a write that failed since the start. */
int clinux_flush_stdout(void);

/* Makes standard output line-buffered, even into a pipe. */
void clinux_line_buffer_stdout(void);

/* futex(2) FUTEX_WAIT_PRIVATE: sleeps while *word == expected. Returns 0 when woken, or the
 * errno: EAGAIN (*word had changed), EINTR (a signal). */
int clinux_futex_wait(uint32_t *word, uint32_t expected);

/* futex(2) FUTEX_WAIT_PRIVATE with a relative timeout: as clinux_futex_wait, or ETIMEDOUT. */
int clinux_futex_wait_timeout(uint32_t *word, uint32_t expected, int64_t nanoseconds);

/* futex(2) FUTEX_WAKE_PRIVATE: wakes up to `count` threads sleeping on `word`. Returns how many
 * it woke, or -errno. */
int clinux_futex_wake(uint32_t *word, int count);

/* eventfd(2), non-blocking and close-on-exec, counting from 0: readable while its count is not
 * 0. Returns the descriptor, or -1 with errno. */
int clinux_eventfd(void);

/* The signal trap: a handler for each of `signals` (process-wide, so every thread, whenever it
 * was created, takes them through it) that writes the signal's number as one byte to a pipe;
 * `ignored` are set to SIG_IGN. Returns the pipe's read end (blocking, close-on-exec), or -1 with
 * errno. Once only: a second call fails with EBUSY. */
int clinux_signal_trap_install(const int *signals, int count, const int *ignored, int ignored_count);

/* The realtime signals' range as this C library reserves it (SIGRTMIN and SIGRTMAX are calls). */
int clinux_signal_realtime_min(void);
int clinux_signal_realtime_max(void);

/* pipe2(2) with O_CLOEXEC: a pipe no child started later inherits by accident. Returns 0, or -1
 * with errno set. */
int clinux_pipe_cloexec(int fds[2]);

/* posix_spawn_file_actions_addclosefrom_np(3): the child closes every descriptor from `lowest`
 * on, so it holds nothing of its parent's but what the file actions gave it. Returns 0 or the
 * error. */
int clinux_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest);

#endif
