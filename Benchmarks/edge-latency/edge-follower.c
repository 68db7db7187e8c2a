/*
 * edge-follower: the shortest program that does what turnstiled does with a coin and a push on
 * a GPIO chip, through libgpiod -- the baseline ("the physical limit") that
 * Benchmarks/scripts/edge-latency.sh measures the daemon against.
 *
 *   edge-follower CHIP COIN PUSH LOCK DEBOUNCE_US
 *
 * CHIP is the character device (/dev/gpiochipN); COIN, PUSH and LOCK are line offsets. COIN and
 * PUSH are requested as the daemon requests its inputs: active-low, bias as-is, both edges, with
 * the kernel's debounce of DEBOUNCE_US (libgpiod 2; libgpiod 1.6 has none, and 0 is what the
 * benchmark uses on both). LOCK is requested as an output at 1 (locked). Then, for ever: block
 * until an edge event comes, and on a coin becoming active drive LOCK to 0 (released), on a
 * push becoming active drive it to 1 (locked); inactive edges are read and ignored. It prints
 * "ready" once the lines are held, and is stopped by SIGTERM (the default action).
 *
 * The same source builds against libgpiod 2.x (the v2 API) and 1.6 (v1): v1's gpiod.h defines
 * GPIOD_LINE_BULK_MAX_LINES, v2's does not. Nothing here allocates once the lines are held.
 */
#include <gpiod.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CONSUMER "edge-follower"
#define MAX_OFFSET 1023                 /* more lines than any chip the benchmark makes */
#define MAX_DEBOUNCE_US 1000000         /* the board files' limit: a second */

static void die(const char *what)
{
    fprintf(stderr, "edge-follower: %s: %s\n", what, strerror(errno));
    exit(1);
}

static unsigned long number_arg(const char *text, unsigned long max, const char *what)
{
    char *end;
    errno = 0;
    unsigned long value = strtoul(text, &end, 10);
    if (*text < '0' || *text > '9' || *end != '\0' || errno != 0 || value > max) {
        fprintf(stderr, "edge-follower: '%s' is not %s (0 to %lu)\n", text, what, max);
        exit(2);
    }
    return value;
}

#ifdef GPIOD_LINE_BULK_MAX_LINES /* ---- libgpiod 1.6 (v1 API) ----------------------------- */

static const char *api_version(void) { return gpiod_version_string(); }

static void follow(const char *path, unsigned int coin, unsigned int push, unsigned int lock,
                   unsigned long debounce_us)
{
    struct gpiod_chip *chip = gpiod_chip_open(path);
    if (!chip) die(path);
    if (debounce_us != 0) {
        fprintf(stderr, "edge-follower: libgpiod %s cannot ask the kernel to debounce\n", api_version());
        exit(2);
    }
    struct gpiod_line *lock_line = gpiod_chip_get_line(chip, lock);
    if (!lock_line || gpiod_line_request_output(lock_line, CONSUMER, 1) < 0) die("request LOCK");

    struct gpiod_line_bulk inputs;
    gpiod_line_bulk_init(&inputs);
    struct gpiod_line *coin_line = gpiod_chip_get_line(chip, coin);
    struct gpiod_line *push_line = gpiod_chip_get_line(chip, push);
    if (!coin_line || !push_line) die("get COIN, PUSH");
    gpiod_line_bulk_add(&inputs, coin_line);
    gpiod_line_bulk_add(&inputs, push_line);
    if (gpiod_line_request_bulk_both_edges_events_flags(&inputs, CONSUMER,
                                                        GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW) < 0)
        die("request COIN, PUSH");

    printf("ready: libgpiod %s, %s, debounce %lu us\n", api_version(), path, debounce_us);
    fflush(stdout);
    for (;;) {
        struct gpiod_line_bulk ready;
        if (gpiod_line_event_wait_bulk(&inputs, NULL, &ready) < 0) die("wait");
        for (unsigned int i = 0; i < gpiod_line_bulk_num_lines(&ready); i++) {
            struct gpiod_line *line = gpiod_line_bulk_get_line(&ready, i);
            struct gpiod_line_event event;
            if (gpiod_line_event_read(line, &event) < 0) die("read");
            if (event.event_type != GPIOD_LINE_EVENT_RISING_EDGE) continue; /* became inactive */
            if (gpiod_line_set_value(lock_line, line == coin_line ? 0 : 1) < 0) die("set LOCK");
        }
    }
}

#else /* ---- libgpiod 2.x (v2 API) ------------------------------------------------------- */

#define EVENTS_PER_READ 16

static const char *api_version(void) { return gpiod_api_version(); }

static struct gpiod_line_request *request(struct gpiod_chip *chip, const unsigned int *offsets,
                                          size_t count, struct gpiod_line_settings *settings)
{
    struct gpiod_line_config *config = gpiod_line_config_new();
    struct gpiod_request_config *request_config = gpiod_request_config_new();
    if (!config || !request_config) die("allocate a request");
    if (gpiod_line_config_add_line_settings(config, offsets, count, settings) < 0) die("configure");
    gpiod_request_config_set_consumer(request_config, CONSUMER);
    struct gpiod_line_request *held = gpiod_chip_request_lines(chip, request_config, config);
    gpiod_request_config_free(request_config);
    gpiod_line_config_free(config);
    gpiod_line_settings_free(settings);
    return held;
}

static void follow(const char *path, unsigned int coin, unsigned int push, unsigned int lock,
                   unsigned long debounce_us)
{
    struct gpiod_chip *chip = gpiod_chip_open(path);
    if (!chip) die(path);

    struct gpiod_line_settings *out = gpiod_line_settings_new();
    if (!out) die("allocate settings");
    gpiod_line_settings_set_direction(out, GPIOD_LINE_DIRECTION_OUTPUT);
    gpiod_line_settings_set_output_value(out, GPIOD_LINE_VALUE_ACTIVE);
    struct gpiod_line_request *outputs = request(chip, &lock, 1, out);
    if (!outputs) die("request LOCK");

    struct gpiod_line_settings *in = gpiod_line_settings_new();
    if (!in) die("allocate settings");
    gpiod_line_settings_set_direction(in, GPIOD_LINE_DIRECTION_INPUT);
    gpiod_line_settings_set_edge_detection(in, GPIOD_LINE_EDGE_BOTH);
    gpiod_line_settings_set_active_low(in, true);
    gpiod_line_settings_set_debounce_period_us(in, debounce_us);
    const unsigned int input_offsets[] = { coin, push };
    struct gpiod_line_request *inputs = request(chip, input_offsets, 2, in);
    if (!inputs) die("request COIN, PUSH");

    struct gpiod_edge_event_buffer *events = gpiod_edge_event_buffer_new(EVENTS_PER_READ);
    if (!events) die("allocate the event buffer");
    printf("ready: libgpiod %s, %s, debounce %lu us\n", api_version(), path, debounce_us);
    fflush(stdout);
    for (;;) {
        int count = gpiod_line_request_read_edge_events(inputs, events, EVENTS_PER_READ);
        if (count < 0) die("read");
        for (int i = 0; i < count; i++) {
            struct gpiod_edge_event *event = gpiod_edge_event_buffer_get_event(events, (unsigned long)i);
            if (gpiod_edge_event_get_event_type(event) != GPIOD_EDGE_EVENT_RISING_EDGE) continue;
            enum gpiod_line_value level = gpiod_edge_event_get_line_offset(event) == coin
                ? GPIOD_LINE_VALUE_INACTIVE : GPIOD_LINE_VALUE_ACTIVE;
            if (gpiod_line_request_set_value(outputs, lock, level) < 0) die("set LOCK");
        }
    }
}

#endif

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: edge-follower CHIP COIN PUSH LOCK DEBOUNCE_US\n");
        return 2;
    }
    unsigned int coin = (unsigned int)number_arg(argv[2], MAX_OFFSET, "a line offset");
    unsigned int push = (unsigned int)number_arg(argv[3], MAX_OFFSET, "a line offset");
    unsigned int lock = (unsigned int)number_arg(argv[4], MAX_OFFSET, "a line offset");
    follow(argv[1], coin, push, lock, number_arg(argv[5], MAX_DEBOUNCE_US, "a debounce in microseconds"));
    return 0;
}
