#define _GNU_SOURCE
#include "clinux.h"
#include <errno.h>
#include <stdio.h>
#include <linux/futex.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

int clinux_ppoll(struct pollfd *fds, unsigned long nfds, const struct timespec *timeout)
{
    return ppoll(fds, (nfds_t)nfds, timeout, NULL);
}

int clinux_thread_set_name(const char *name)
{
    return pthread_setname_np(pthread_self(), name);
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

int clinux_eventfd(void)
{
    return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
}

static int signal_trap_write_end = -1;

static void signal_trap_handler(int signo)
{
    /* Only async-signal-safe calls here. A full pipe (thousands unread) drops the byte: the
     * reader is behind by that many of the same signals, which it coalesces anyway. */
    int saved = errno;
    unsigned char byte = (unsigned char)signo;
    ssize_t written = write(signal_trap_write_end, &byte, 1);
    (void)written;
    errno = saved;
}

/* The first milliseconds: from the program's first instruction (its constructors run before
 * `main`, before the Swift runtime starts) until `main` installs the trap, a stop or reload
 * signal would take its default action and end the daemon with its outputs wherever they
 * were. For a daemon's run (`DAEMON run ...`), these signals are taken from the start by a
 * handler that only notes them; the trap hands each noted one on when it is installed, so a
 * SIGHUP 1 ms after exec reloads, and a SIGTERM stops through the fail-mode drive, as later
 * ones do. Other commands (and the test runners that link this) keep the default actions. */
static const int early_signals[] = { SIGHUP, SIGTERM, SIGINT, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM,
                                     SIGVTALRM, SIGIO, SIGPWR, SIGSTKFLT, SIGXCPU };
#define EARLY_SIGNAL_COUNT ((int)(sizeof early_signals / sizeof early_signals[0]))
/* Set by the early handler, on whichever thread the signal is delivered to, and taken by the
 * trap's install on the main thread: C11 atomics, not `volatile sig_atomic_t`, which is only
 * for a thread and its own handler (between threads, a data race). Lock-free, so
 * async-signal-safe; relaxed, as a flag publishes nothing else. The install takes each with an
 * exchange, which reads the latest note in the flag's modification order and clears it in the
 * same step: a note made before is seen, and taken once. */
static atomic_int early_noted[EARLY_SIGNAL_COUNT];

/* `handler` for each of `signals`, each masking all of them while it runs (SA_RESTART): the
 * early handler's and the trap's. 0, or -1 with errno from the sigaction that failed. */
static int take_signals(void (*handler)(int), const int *signals, int count)
{
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = handler;
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    for (int i = 0; i < count; i++)
        sigaddset(&action.sa_mask, signals[i]);
    for (int i = 0; i < count; i++)
        if (sigaction(signals[i], &action, NULL) != 0)
            return -1;
    return 0;
}

static void early_signal_handler(int signo)
{
    for (int i = 0; i < EARLY_SIGNAL_COUNT; i++)
        if (early_signals[i] == signo)
            atomic_store_explicit(&early_noted[i], 1, memory_order_relaxed);
}

static void clinux_take_early_signals(int argc, char **argv, char **envp)
{
    (void)envp;
    if (argc < 2 || argv == NULL || argv[1] == NULL || strcmp(argv[1], "run") != 0)
        return;
    /* A signal blocked by whoever started the daemon stays pending until the trap unblocks it.
     * Nothing can report a failure this early: the trap installs its own handlers anyway. */
    (void)take_signals(early_signal_handler, early_signals, EARLY_SIGNAL_COUNT);
}

/* In the executable's pre-initialisation array: run by the dynamic loader before any shared
 * library's initialisers (the Swift runtime's, Foundation's), the earliest a program can act.
 * Only the loader's own mapping of the libraries comes before it. */
__attribute__((section(".preinit_array"), used))
static void (*const clinux_early_signals_entry)(int, char **, char **) = clinux_take_early_signals;

int clinux_signal_trap_install(const int *signals, int count, const int *ignored, int ignored_count)
{
    if (signal_trap_write_end >= 0) {
        errno = EBUSY;
        return -1;
    }
    int ends[2];
    if (pipe2(ends, O_CLOEXEC) != 0)
        return -1;
    /* The write end never blocks a handler; the read end blocks its reader thread. */
    if (fcntl(ends[1], F_SETFL, O_NONBLOCK) != 0) {
        int saved = errno;
        close(ends[0]);
        close(ends[1]);
        errno = saved;
        return -1;
    }
    signal_trap_write_end = ends[1];
    if (take_signals(signal_trap_handler, signals, count) != 0)
        return -1;
    struct sigaction ignore;
    memset(&ignore, 0, sizeof ignore);
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    for (int i = 0; i < ignored_count; i++) {
        if (sigaction(ignored[i], &ignore, NULL) != 0)
            return -1;
    }
    /* Whatever mask the process was started with (a supervisor may block signals), these are
     * now taken by the handler, or ignored. */
    sigset_t unblock;
    sigemptyset(&unblock);
    for (int i = 0; i < count; i++)
        sigaddset(&unblock, signals[i]);
    pthread_sigmask(SIG_UNBLOCK, &unblock, NULL);
    /* Signals noted since the first instruction, handed on in the order of the list (the
     * handlers above take any that comes from now on, so none is lost or taken twice). */
    for (int i = 0; i < EARLY_SIGNAL_COUNT; i++) {
        if (!atomic_exchange_explicit(&early_noted[i], 0, memory_order_relaxed))
            continue;
        for (int j = 0; j < count; j++)
            if (signals[j] == early_signals[i])
                signal_trap_handler(early_signals[i]);
    }
    return ends[0];
}

int clinux_signal_realtime_min(void)
{
    return SIGRTMIN;
}

int clinux_signal_realtime_max(void)
{
    return SIGRTMAX;
}

int clinux_pipe_cloexec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}

int clinux_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest) {
    return posix_spawn_file_actions_addclosefrom_np(actions, lowest);
}
