/*
 * edge-probe: makes edges on a gpio-sim chip and times how long the program holding the lines
 * takes to change an output in answer -- the measuring half of Benchmarks/scripts/edge-latency.sh,
 * run inside the HIL VM (static, no library). It drives a turnstile's cycle that ends where it
 * started, so any number of cycles can follow one another:
 *
 *   coin active   -> LOCK 1 -> 0   measured          coin inactive  (no output change)
 *   push active   -> LOCK 0 -> 1   measured          push inactive  (no output change)
 *
 * An input is driven through gpio-sim's sysfs `pull` (pull-down = active: the board's inputs are
 * active-low), the output read from its `value`. For each measured edge:
 *
 *   t0       CLOCK_MONOTONIC just before the write(2) of `pull`;
 *   polled   the first read of LOCK's `value` showing the new level, CLOCK_MONOTONIC, minus t0;
 *   traced   with --trace-gpio: the kernel's own record of the output write (the gpio:gpio_value
 *            trace event, "set", on trace_clock mono = CLOCK_MONOTONIC, microsecond resolution as
 *            ftrace prints it), minus t0. Independent of when the probe gets the CPU back.
 *
 * The probe runs under SCHED_IDLE: on the VM's one CPU, a probe polling at normal priority would
 * compete with the program it measures; at SCHED_IDLE any woken task preempts it, so the program
 * under test runs as soon as it is woken and the probe polls only while nothing else wants the
 * CPU. "polled" therefore ends once the program has gone back to waiting (it includes the work the
 * program does after its output write), "traced" ends at the write itself.
 *
 * Before each press the probe checks LOCK holds the level the cycle expects (a level reached
 * otherwise -- a relock timer, a missed edge -- would time nothing): if not, it fails.
 *
 *   edge-probe --sysfs DIR --coin N --push N --lock N --cycles N [--warmup N] [--gap-us N]
 *              [--timeout-ms N] [--trace-gpio N --tracefs DIR]
 *
 * DIR is the chip's sysfs directory (/sys/devices/platform/gpio-sim.X/gpiochipN, with sim_gpioK/
 * below it). --warmup cycles go first and are not reported; --gap-us is the pause after each
 * write of `pull` once its answer is seen (default 2000). --trace-gpio is LOCK's global GPIO
 * number (the trace event's `gpio`); the probe sets up the gpio_value event under --tracefs
 * (default /sys/kernel/tracing, mounted) and leaves tracing off afterwards.
 *
 * Output, standard output: one line per reported edge, "coin|push POLLED_NS TRACED_NS" (TRACED_NS
 * is - without --trace-gpio); on standard error, a line of totals. Exit 0, or 1 when an answer did
 * not come within --timeout-ms (default 5000) or came before it was asked for.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PULL_ACTIVE "pull-down"        /* the board's inputs are active-low */
#define PULL_IDLE "pull-up"
#define NS_PER_S 1000000000LL
#define TRACE_BUFFER_KB "4096"         /* per CPU; an event is about 40 bytes */
#define TRACE_SLACK_NS 1000            /* ftrace prints microseconds: a stamp may read up to 1 us early */
#define MAX_TRACE_LINE 512

enum kind { COIN, PUSH };
static const char *kind_name[] = { "coin", "push" };

struct sample {
    enum kind kind;
    int level;                         /* LOCK's level after the edge */
    int64_t t0_ns;
    int64_t polled_ns;
    int64_t traced_ns;                 /* -1: not traced or not found */
};

static struct {
    const char *sysfs, *tracefs;
    int coin, push, lock, trace_gpio;
    long cycles, warmup, gap_us, timeout_ms;
} opt = { .tracefs = "/sys/kernel/tracing", .coin = -1, .push = -1, .lock = -1, .trace_gpio = -1,
          .cycles = -1, .warmup = 0, .gap_us = 2000, .timeout_ms = 5000 };

static void die(const char *fmt, const char *arg)
{
    fprintf(stderr, "edge-probe: ");
    fprintf(stderr, fmt, arg);
    if (errno) fprintf(stderr, ": %s", strerror(errno));
    fputc('\n', stderr);
    exit(1);
}

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

static void sleep_us(long us)
{
    struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {}
}

static int open_line_attr(int offset, const char *attr, int flags)
{
    char path[512];
    snprintf(path, sizeof path, "%s/sim_gpio%d/%s", opt.sysfs, offset, attr);
    int fd = open(path, flags);
    if (fd < 0) die("open %s", path);
    return fd;
}

static void write_all(int fd, const char *text, const char *what)
{
    size_t length = strlen(text);
    if (pwrite(fd, text, length, 0) != (ssize_t)length) die("write %s", what);
}

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_WRONLY | O_TRUNC);
    if (fd < 0) die("open %s", path);
    size_t length = strlen(text);                 /* tracefs files cannot pwrite: write(2) */
    if (write(fd, text, length) != (ssize_t)length) die("write %s", path);
    close(fd);
}

static int read_level(int fd)
{
    char c;
    if (pread(fd, &c, 1, 0) != 1) die("read %s", "LOCK's value");
    return c == '1';
}

static int pull_fd[2], value_fd;

/* One edge: write the input's pull, and when `expect` >= 0 wait for LOCK to read it. */
static void edge(enum kind kind, int active, int expect, struct sample *sample)
{
    int64_t t0, t1 = 0, deadline;
    if (expect >= 0 && read_level(value_fd) == expect) {
        errno = 0;
        die("LOCK already reads the level a %s edge should bring: the cycle is out of step", kind_name[kind]);
    }
    t0 = now_ns();
    write_all(pull_fd[kind], active ? PULL_ACTIVE : PULL_IDLE, kind_name[kind]);
    if (expect >= 0) {
        deadline = t0 + (int64_t)opt.timeout_ms * 1000000;
        for (;;) {
            int level = read_level(value_fd);
            t1 = now_ns();
            if (level == expect) break;
            if (t1 > deadline) {
                errno = 0;
                die("no answer to a %s edge in time", kind_name[kind]);
            }
        }
        if (sample) *sample = (struct sample){ kind, expect, t0, t1 - t0, -1 };
    }
    sleep_us(opt.gap_us);
}

static void trace_setup(void)
{
    char dir[512], filter[64];
    snprintf(dir, sizeof dir, "%s/events/gpio/gpio_value", opt.tracefs);
    snprintf(filter, sizeof filter, "gpio == %d && get == 0", opt.trace_gpio);
    write_file(opt.tracefs, "tracing_on", "0");
    write_file(opt.tracefs, "trace_clock", "mono");
    write_file(opt.tracefs, "buffer_size_kb", TRACE_BUFFER_KB);
    write_file(dir, "filter", filter);
    write_file(dir, "enable", "1");
    write_file(opt.tracefs, "trace", "");       /* clears the buffer */
    write_file(opt.tracefs, "tracing_on", "1");
}

/* Matches each sample with the first "set" of its level stamped at or after its t0. */
static void trace_collect(struct sample *samples, long count)
{
    char path[512], line[MAX_TRACE_LINE];
    long next = 0, events = 0;
    write_file(opt.tracefs, "tracing_on", "0");
    snprintf(path, sizeof path, "%s/trace", opt.tracefs);
    FILE *trace = fopen(path, "r");
    if (!trace) die("open %s", path);
    while (fgets(line, sizeof line, trace) && next < count) {
        char *at = strstr(line, ": gpio_value: ");
        unsigned long sec, usec;
        unsigned gpio;
        int level;
        char dir[8];
        if (line[0] == '#' || !at) continue;
        /* "  task-pid  [000] d..1.  123.456789: gpio_value: 512 set 0": the stamp ends at `at` */
        char *stamp = at;
        while (stamp > line && stamp[-1] != ' ') stamp--;
        if (sscanf(stamp, "%lu.%lu", &sec, &usec) != 2) continue;
        if (sscanf(at, ": gpio_value: %u %7s %d", &gpio, dir, &level) != 3) continue;
        if ((int)gpio != opt.trace_gpio || strcmp(dir, "set") != 0) continue;
        events++;
        int64_t t = (int64_t)sec * NS_PER_S + (int64_t)usec * 1000;
        /* An event before this sample's t0 belongs to an earlier one (or to start-up). */
        if (t + TRACE_SLACK_NS <= samples[next].t0_ns || level != samples[next].level) continue;
        samples[next].traced_ns = t - samples[next].t0_ns;
        if (samples[next].traced_ns < 0) samples[next].traced_ns = 0;
        next++;
    }
    fclose(trace);
    fprintf(stderr, "edge-probe: %ld LOCK writes traced, %ld of %ld edges matched\n", events, next, count);
}

static long number(const char *text, const char *name)
{
    char *end;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (*text == '\0' || *end != '\0' || errno || value < 0) die("%s wants a number", name);
    return value;
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *name = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (!value) { errno = 0; die("%s wants a value", name); }
        i++;
        if (!strcmp(name, "--sysfs")) opt.sysfs = value;
        else if (!strcmp(name, "--tracefs")) opt.tracefs = value;
        else if (!strcmp(name, "--coin")) opt.coin = (int)number(value, name);
        else if (!strcmp(name, "--push")) opt.push = (int)number(value, name);
        else if (!strcmp(name, "--lock")) opt.lock = (int)number(value, name);
        else if (!strcmp(name, "--trace-gpio")) opt.trace_gpio = (int)number(value, name);
        else if (!strcmp(name, "--cycles")) opt.cycles = number(value, name);
        else if (!strcmp(name, "--warmup")) opt.warmup = number(value, name);
        else if (!strcmp(name, "--gap-us")) opt.gap_us = number(value, name);
        else if (!strcmp(name, "--timeout-ms")) opt.timeout_ms = number(value, name);
        else { errno = 0; die("unknown option %s", name); }
    }
    if (!opt.sysfs || opt.coin < 0 || opt.push < 0 || opt.lock < 0 || opt.cycles < 1) {
        errno = 0;
        die("%s", "usage: edge-probe --sysfs DIR --coin N --push N --lock N --cycles N [--warmup N] "
                  "[--gap-us N] [--timeout-ms N] [--trace-gpio N [--tracefs DIR]]");
    }

    struct sched_param idle = { 0 };
    if (sched_setscheduler(0, SCHED_IDLE, &idle) < 0) die("%s", "sched_setscheduler SCHED_IDLE");

    long count = 2 * opt.cycles;
    struct sample *samples = calloc((size_t)count, sizeof *samples);
    if (!samples) die("%s", "calloc");
    pull_fd[COIN] = open_line_attr(opt.coin, "pull", O_WRONLY);
    pull_fd[PUSH] = open_line_attr(opt.push, "pull", O_WRONLY);
    value_fd = open_line_attr(opt.lock, "value", O_RDONLY);

    /* Inputs idle, the lock locked: where every cycle starts. */
    edge(COIN, 0, -1, NULL);
    edge(PUSH, 0, -1, NULL);
    if (read_level(value_fd) != 1) { errno = 0; die("%s", "LOCK does not read 1 (locked) at the start"); }

    if (opt.trace_gpio >= 0) trace_setup();
    for (long cycle = -opt.warmup; cycle < opt.cycles; cycle++) {
        struct sample *s = cycle >= 0 ? &samples[2 * cycle] : NULL;
        edge(COIN, 1, 0, s);
        edge(COIN, 0, -1, NULL);
        edge(PUSH, 1, 1, s ? s + 1 : NULL);
        edge(PUSH, 0, -1, NULL);
    }
    if (opt.trace_gpio >= 0) trace_collect(samples, count);

    for (long i = 0; i < count; i++) {
        if (samples[i].traced_ns >= 0)
            printf("%s %lld %lld\n", kind_name[samples[i].kind], (long long)samples[i].polled_ns,
                   (long long)samples[i].traced_ns);
        else
            printf("%s %lld -\n", kind_name[samples[i].kind], (long long)samples[i].polled_ns);
    }
    return 0;
}
