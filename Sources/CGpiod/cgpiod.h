/*
 * cgpiod.h — one neutral C API over libgpiod 1.6 (v1 API) and libgpiod 2.x (v2 API).
 *
 * Swift sees only the `cgpiod_*` names below; which libgpiod generation they call is decided
 * here, at compile time, from the installed <gpiod.h> (v1 defines GPIOD_LINE_BULK_MAX_LINES,
 * v2 does not). A system library target cannot hold .c files, so everything is `static inline`.
 *
 * Conventions (libgpiod's): functions return 0 or a non-negative count on success and -1 with
 * errno set on failure; pointers are NULL on failure with errno set. Values and edges are
 * *logical*: active-low inversion is applied by the kernel, so 1 / rising means "active".
 *
 * Memory: requests are allocated once when lines are requested; reading edges and values and
 * writing values never allocate (v2 reads into the gpiod_edge_event_buffer made at request
 * time, v1 into a fixed array inside the request).
 */
#ifndef CGPIOD_H
#define CGPIOD_H

#include <gpiod.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef GPIOD_LINE_BULK_MAX_LINES
#define CGPIOD_GENERATION 1
#include <sys/epoll.h>
#else
#define CGPIOD_GENERATION 2
#endif

/* The most lines one request may hold (v1's bulk limit; the kernel's is also 64). */
#define CGPIOD_MAX_LINES 64
/* Edge events the kernel keeps per requested line before dropping (v2 sets it; v1's kernel
 * buffer is fixed at 16 per line). */
#define CGPIOD_EVENTS_PER_LINE 64
/* Edge events one read returns at most. */
#define CGPIOD_EVENTS_PER_READ 64
/* Room for a chip's or line's name, label or consumer, with the terminating NUL (the kernel's
 * limit is 32). */
#define CGPIOD_NAME_SIZE 64

enum cgpiod_bias {
    CGPIOD_BIAS_AS_IS = 0,
    CGPIOD_BIAS_DISABLED,
    CGPIOD_BIAS_PULL_UP,
    CGPIOD_BIAS_PULL_DOWN,
    CGPIOD_BIAS_UNKNOWN,
};

enum cgpiod_direction {
    CGPIOD_DIRECTION_INPUT = 0,
    CGPIOD_DIRECTION_OUTPUT,
};

/* How one input line is requested. */
typedef struct {
    unsigned int offset;
    bool active_low;
    enum cgpiod_bias bias;
    /* Microseconds; the kernel applies it where the API can ask for it (v2). */
    unsigned long debounce_us;
} cgpiod_input_line;

/* How one output line is requested. */
typedef struct {
    unsigned int offset;
    bool active_low;
    /* Logical value the line is driven to by the request itself, before any write. */
    bool initial_value;
} cgpiod_output_line;

/* One edge event. */
typedef struct {
    /* The line's index in its request. */
    unsigned int index;
    bool rising;
    /* CLOCK_MONOTONIC nanoseconds. */
    uint64_t timestamp_ns;
    /* The kernel's sequence number within the request (v2, from 1); v1 has none and numbers
     * the events it reads consecutively. */
    uint64_t seqno;
} cgpiod_edge;

typedef struct {
    char name[CGPIOD_NAME_SIZE];
    char label[CGPIOD_NAME_SIZE];
    unsigned int num_lines;
} cgpiod_chip_info;

typedef struct {
    char name[CGPIOD_NAME_SIZE];
    char consumer[CGPIOD_NAME_SIZE];
    bool used;
    bool active_low;
    enum cgpiod_direction direction;
    enum cgpiod_bias bias;
} cgpiod_line_info;

/* A request of input or output lines. */
typedef struct cgpiod_request {
    unsigned int num_lines;
    unsigned int offsets[CGPIOD_MAX_LINES];
    bool is_input;
#if CGPIOD_GENERATION == 1
    /* v1: one kernel request per line, so each line keeps its own flags; the lines belong to
     * the chip, which must stay open while the request lives. */
    struct gpiod_chip *chip;
    struct gpiod_line *lines[CGPIOD_MAX_LINES];
    /* Edge requests have one descriptor per line; an epoll set makes them one to wait on. */
    int epoll_fd;
    struct gpiod_line_event events[CGPIOD_EVENTS_PER_READ];
    uint64_t next_seqno;
#else
    struct gpiod_line_request *request;
    struct gpiod_edge_event_buffer *buffer;
#endif
} cgpiod_request;

static inline int cgpiod_generation(void) { return CGPIOD_GENERATION; }

static inline const char *cgpiod_library_version(void)
{
#if CGPIOD_GENERATION == 1
    return gpiod_version_string();
#else
    return gpiod_api_version();
#endif
}

/* The oldest kernel this generation's GPIO interface exists on, as major * 100 + minor: the
 * character device's v1 interface came with 4.8, the v2 interface libgpiod 2 needs with 5.10. */
static inline unsigned int cgpiod_kernel_needed(void) { return CGPIOD_GENERATION == 1 ? 408 : 510; }

/* Whether the kernel debounces input edges for this API generation (only v2 can ask it to). */
static inline bool cgpiod_kernel_debounces(void) { return CGPIOD_GENERATION == 2; }

static inline void cgpiod_copy_name(char *dst, const char *src)
{
    dst[0] = '\0';
    if (src) {
        strncpy(dst, src, CGPIOD_NAME_SIZE - 1);
        dst[CGPIOD_NAME_SIZE - 1] = '\0';
    }
}

/* ---- chips ------------------------------------------------------------------------------ */

static inline struct gpiod_chip *cgpiod_chip_open(const char *path)
{
    return gpiod_chip_open(path);
}

static inline void cgpiod_chip_close(struct gpiod_chip *chip) { gpiod_chip_close(chip); }

static inline int cgpiod_chip_get_info(struct gpiod_chip *chip, cgpiod_chip_info *out)
{
#if CGPIOD_GENERATION == 1
    cgpiod_copy_name(out->name, gpiod_chip_name(chip));
    cgpiod_copy_name(out->label, gpiod_chip_label(chip));
    out->num_lines = gpiod_chip_num_lines(chip);
    return 0;
#else
    struct gpiod_chip_info *info = gpiod_chip_get_info(chip);
    if (!info)
        return -1;
    cgpiod_copy_name(out->name, gpiod_chip_info_get_name(info));
    cgpiod_copy_name(out->label, gpiod_chip_info_get_label(info));
    out->num_lines = (unsigned int)gpiod_chip_info_get_num_lines(info);
    gpiod_chip_info_free(info);
    return 0;
#endif
}

static inline int cgpiod_chip_get_line_info(struct gpiod_chip *chip, unsigned int offset,
                                            cgpiod_line_info *out)
{
#if CGPIOD_GENERATION == 1
    struct gpiod_line *line = gpiod_chip_get_line(chip, offset);
    if (!line)
        return -1;
    if (gpiod_line_update(line) < 0)
        return -1;
    cgpiod_copy_name(out->name, gpiod_line_name(line));
    cgpiod_copy_name(out->consumer, gpiod_line_consumer(line));
    out->used = gpiod_line_is_used(line);
    out->active_low = gpiod_line_active_state(line) == GPIOD_LINE_ACTIVE_STATE_LOW;
    out->direction = gpiod_line_direction(line) == GPIOD_LINE_DIRECTION_OUTPUT
                         ? CGPIOD_DIRECTION_OUTPUT : CGPIOD_DIRECTION_INPUT;
    switch (gpiod_line_bias(line)) {
    case GPIOD_LINE_BIAS_DISABLE: out->bias = CGPIOD_BIAS_DISABLED; break;
    case GPIOD_LINE_BIAS_PULL_UP: out->bias = CGPIOD_BIAS_PULL_UP; break;
    case GPIOD_LINE_BIAS_PULL_DOWN: out->bias = CGPIOD_BIAS_PULL_DOWN; break;
    default: out->bias = CGPIOD_BIAS_UNKNOWN; break;
    }
    return 0;
#else
    struct gpiod_line_info *info = gpiod_chip_get_line_info(chip, offset);
    if (!info)
        return -1;
    cgpiod_copy_name(out->name, gpiod_line_info_get_name(info));
    cgpiod_copy_name(out->consumer, gpiod_line_info_get_consumer(info));
    out->used = gpiod_line_info_is_used(info);
    out->active_low = gpiod_line_info_is_active_low(info);
    out->direction = gpiod_line_info_get_direction(info) == GPIOD_LINE_DIRECTION_OUTPUT
                         ? CGPIOD_DIRECTION_OUTPUT : CGPIOD_DIRECTION_INPUT;
    switch (gpiod_line_info_get_bias(info)) {
    case GPIOD_LINE_BIAS_DISABLED: out->bias = CGPIOD_BIAS_DISABLED; break;
    case GPIOD_LINE_BIAS_PULL_UP: out->bias = CGPIOD_BIAS_PULL_UP; break;
    case GPIOD_LINE_BIAS_PULL_DOWN: out->bias = CGPIOD_BIAS_PULL_DOWN; break;
    default: out->bias = CGPIOD_BIAS_UNKNOWN; break;
    }
    gpiod_line_info_free(info);
    return 0;
#endif
}

/* ---- requests --------------------------------------------------------------------------- */

static inline cgpiod_request *cgpiod_request_alloc(size_t num_lines, bool is_input)
{
    if (num_lines == 0 || num_lines > CGPIOD_MAX_LINES) {
        errno = EINVAL;
        return NULL;
    }
    cgpiod_request *req = (cgpiod_request *)calloc(1, sizeof(*req));
    if (!req)
        return NULL;
    req->num_lines = (unsigned int)num_lines;
    req->is_input = is_input;
#if CGPIOD_GENERATION == 1
    req->epoll_fd = -1;
#endif
    return req;
}

static inline void cgpiod_request_release(cgpiod_request *req)
{
    if (!req)
        return;
    int saved = errno;
#if CGPIOD_GENERATION == 1
    for (unsigned int i = 0; i < req->num_lines; i++)
        if (req->lines[i] && gpiod_line_is_requested(req->lines[i]))
            gpiod_line_release(req->lines[i]);
    if (req->epoll_fd >= 0)
        close(req->epoll_fd);
#else
    if (req->request)
        gpiod_line_request_release(req->request);
    if (req->buffer)
        gpiod_edge_event_buffer_free(req->buffer);
#endif
    free(req);
    errno = saved;
}

#if CGPIOD_GENERATION == 1
static inline int cgpiod_v1_bias_flags(enum cgpiod_bias bias)
{
    switch (bias) {
    case CGPIOD_BIAS_DISABLED: return GPIOD_LINE_REQUEST_FLAG_BIAS_DISABLE;
    case CGPIOD_BIAS_PULL_UP: return GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_UP;
    case CGPIOD_BIAS_PULL_DOWN: return GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_DOWN;
    default: return 0;
    }
}
#else
static inline enum gpiod_line_bias cgpiod_v2_bias(enum cgpiod_bias bias)
{
    switch (bias) {
    case CGPIOD_BIAS_DISABLED: return GPIOD_LINE_BIAS_DISABLED;
    case CGPIOD_BIAS_PULL_UP: return GPIOD_LINE_BIAS_PULL_UP;
    case CGPIOD_BIAS_PULL_DOWN: return GPIOD_LINE_BIAS_PULL_DOWN;
    default: return GPIOD_LINE_BIAS_AS_IS;
    }
}

/* Requests `config`'s lines under `consumer` (v2), freeing the configuration either way. */
static inline struct gpiod_line_request *
cgpiod_v2_request(struct gpiod_chip *chip, struct gpiod_line_config *config, const char *consumer,
                  size_t event_buffer_size)
{
    struct gpiod_line_request *request = NULL;
    struct gpiod_request_config *req_cfg = gpiod_request_config_new();
    if (req_cfg) {
        gpiod_request_config_set_consumer(req_cfg, consumer);
        if (event_buffer_size)
            gpiod_request_config_set_event_buffer_size(req_cfg, event_buffer_size);
        request = gpiod_chip_request_lines(chip, req_cfg, config);
        int saved = errno;
        gpiod_request_config_free(req_cfg);
        errno = saved;
    }
    int saved = errno;
    gpiod_line_config_free(config);
    errno = saved;
    return request;
}

/* Builds a v2 line configuration with one settings object per line, filled by `fill` for line
 * `index`; NULL with errno set and `*failed_index` on failure. */
static inline struct gpiod_line_config *
cgpiod_v2_line_config(const unsigned int *offsets, size_t num_lines,
                      void (*fill)(struct gpiod_line_settings *, size_t index, const void *lines),
                      const void *lines, int *failed_index)
{
    struct gpiod_line_config *config = gpiod_line_config_new();
    if (!config)
        return NULL;
    for (size_t i = 0; i < num_lines; i++) {
        struct gpiod_line_settings *settings = gpiod_line_settings_new();
        if (!settings) {
            gpiod_line_config_free(config);
            return NULL;
        }
        fill(settings, i, lines);
        int rc = gpiod_line_config_add_line_settings(config, &offsets[i], 1, settings);
        int saved = errno;
        gpiod_line_settings_free(settings);
        if (rc < 0) {
            *failed_index = (int)i;
            gpiod_line_config_free(config);
            errno = saved;
            return NULL;
        }
    }
    return config;
}

static inline void cgpiod_v2_fill_input(struct gpiod_line_settings *settings, size_t index, const void *lines)
{
    const cgpiod_input_line *line = &((const cgpiod_input_line *)lines)[index];
    gpiod_line_settings_set_direction(settings, GPIOD_LINE_DIRECTION_INPUT);
    gpiod_line_settings_set_edge_detection(settings, GPIOD_LINE_EDGE_BOTH);
    gpiod_line_settings_set_bias(settings, cgpiod_v2_bias(line->bias));
    gpiod_line_settings_set_active_low(settings, line->active_low);
    gpiod_line_settings_set_debounce_period_us(settings, line->debounce_us);
    gpiod_line_settings_set_event_clock(settings, GPIOD_LINE_CLOCK_MONOTONIC);
}

static inline void cgpiod_v2_fill_output(struct gpiod_line_settings *settings, size_t index, const void *lines)
{
    const cgpiod_output_line *line = &((const cgpiod_output_line *)lines)[index];
    gpiod_line_settings_set_direction(settings, GPIOD_LINE_DIRECTION_OUTPUT);
    gpiod_line_settings_set_active_low(settings, line->active_low);
    gpiod_line_settings_set_output_value(settings, line->initial_value ? GPIOD_LINE_VALUE_ACTIVE
                                                                       : GPIOD_LINE_VALUE_INACTIVE);
}
#endif

/*
 * Takes `lines` as inputs with edge detection on both edges, all or none. On failure returns
 * NULL with errno set and `*failed_index` naming the line that failed (or -1 when unknown).
 */
static inline cgpiod_request *cgpiod_request_inputs(struct gpiod_chip *chip,
                                                    const cgpiod_input_line *lines,
                                                    size_t num_lines, const char *consumer,
                                                    int *failed_index)
{
    *failed_index = -1;
    cgpiod_request *req = cgpiod_request_alloc(num_lines, true);
    if (!req)
        return NULL;
    for (size_t i = 0; i < num_lines; i++)
        req->offsets[i] = lines[i].offset;
#if CGPIOD_GENERATION == 1
    req->chip = chip;
    req->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    if (req->epoll_fd < 0)
        goto fail;
    for (size_t i = 0; i < num_lines; i++) {
        *failed_index = (int)i;
        struct gpiod_line *line = gpiod_chip_get_line(chip, lines[i].offset);
        if (!line)
            goto fail;
        int flags = cgpiod_v1_bias_flags(lines[i].bias);
        if (lines[i].active_low)
            flags |= GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW;
        if (gpiod_line_request_both_edges_events_flags(line, consumer, flags) < 0)
            goto fail;
        req->lines[i] = line;
        struct epoll_event ev = { .events = EPOLLIN | EPOLLPRI, .data = { .u32 = (uint32_t)i } };
        if (epoll_ctl(req->epoll_fd, EPOLL_CTL_ADD, gpiod_line_event_get_fd(line), &ev) < 0)
            goto fail;
    }
    *failed_index = -1;
    return req;
#else
    struct gpiod_line_config *config =
        cgpiod_v2_line_config(req->offsets, num_lines, cgpiod_v2_fill_input, lines, failed_index);
    if (!config)
        goto fail;
    req->request = cgpiod_v2_request(chip, config, consumer, CGPIOD_EVENTS_PER_LINE * num_lines);
    if (!req->request)
        goto fail;
    req->buffer = gpiod_edge_event_buffer_new(CGPIOD_EVENTS_PER_READ);
    if (!req->buffer)
        goto fail;
    /* Reads never block: an empty buffer reads as EAGAIN (see cgpiod_request_read_edges). */
    int fd = gpiod_line_request_get_fd(req->request);
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
        goto fail;
    return req;
#endif
fail:
    cgpiod_request_release(req);
    return NULL;
}

/*
 * Takes `lines` as outputs, all or none, each driven to its initial value by the request
 * itself (the kernel sets the level as it makes the line an output: no glitch).
 */
static inline cgpiod_request *cgpiod_request_outputs(struct gpiod_chip *chip,
                                                     const cgpiod_output_line *lines,
                                                     size_t num_lines, const char *consumer,
                                                     int *failed_index)
{
    *failed_index = -1;
    cgpiod_request *req = cgpiod_request_alloc(num_lines, false);
    if (!req)
        return NULL;
    for (size_t i = 0; i < num_lines; i++)
        req->offsets[i] = lines[i].offset;
#if CGPIOD_GENERATION == 1
    req->chip = chip;
    for (size_t i = 0; i < num_lines; i++) {
        *failed_index = (int)i;
        struct gpiod_line *line = gpiod_chip_get_line(chip, lines[i].offset);
        if (!line)
            goto fail;
        int flags = lines[i].active_low ? GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW : 0;
        if (gpiod_line_request_output_flags(line, consumer, flags, lines[i].initial_value ? 1 : 0) < 0)
            goto fail;
        req->lines[i] = line;
    }
    *failed_index = -1;
    return req;
#else
    struct gpiod_line_config *config =
        cgpiod_v2_line_config(req->offsets, num_lines, cgpiod_v2_fill_output, lines, failed_index);
    if (!config)
        goto fail;
    req->request = cgpiod_v2_request(chip, config, consumer, 0);
    if (!req->request)
        goto fail;
    return req;
#endif
fail:
    cgpiod_request_release(req);
    return NULL;
}

/* A descriptor that polls readable when edge events are pending (inputs only). */
static inline int cgpiod_request_fd(const cgpiod_request *req)
{
#if CGPIOD_GENERATION == 1
    return req->epoll_fd;
#else
    return gpiod_line_request_get_fd(req->request);
#endif
}

/* The line's logical value (1 active, 0 inactive), or -1 with errno set. */
static inline int cgpiod_request_get_value(cgpiod_request *req, unsigned int index)
{
    if (index >= req->num_lines) {
        errno = EINVAL;
        return -1;
    }
#if CGPIOD_GENERATION == 1
    return gpiod_line_get_value(req->lines[index]);
#else
    int value = (int)gpiod_line_request_get_value(req->request, req->offsets[index]);
    return value < 0 ? -1 : value;
#endif
}

static inline int cgpiod_request_set_value(cgpiod_request *req, unsigned int index, bool value)
{
    if (index >= req->num_lines) {
        errno = EINVAL;
        return -1;
    }
#if CGPIOD_GENERATION == 1
    return gpiod_line_set_value(req->lines[index], value ? 1 : 0);
#else
    return gpiod_line_request_set_value(req->request, req->offsets[index],
                                        value ? GPIOD_LINE_VALUE_ACTIVE : GPIOD_LINE_VALUE_INACTIVE);
#endif
}

/* Whether edge events are waiting: 1 yes, 0 no, -1 with errno set. Never blocks. */
static inline int cgpiod_request_has_events(const cgpiod_request *req)
{
    struct pollfd pfd = { .fd = cgpiod_request_fd(req), .events = POLLIN | POLLPRI };
    int rc;
    do {
        rc = poll(&pfd, 1, 0);
    } while (rc < 0 && errno == EINTR);
    if (rc < 0)
        return -1;
    if (rc > 0 && (pfd.revents & (POLLERR | POLLHUP | POLLNVAL))) {
        errno = ENODEV;
        return -1;
    }
    return rc > 0 ? 1 : 0;
}

#if CGPIOD_GENERATION == 1
/* Sorts the first `count` edges by time; they come per line, and a caller wants them in the
 * order they happened. Insertion sort: a few dozen events, mostly in order already. */
static inline void cgpiod_sort_edges(cgpiod_edge *edges, size_t count)
{
    for (size_t i = 1; i < count; i++) {
        cgpiod_edge moving = edges[i];
        size_t j = i;
        while (j > 0 && edges[j - 1].timestamp_ns > moving.timestamp_ns) {
            edges[j] = edges[j - 1];
            j--;
        }
        edges[j] = moving;
    }
}
#endif

/*
 * Reads up to `max` pending edge events into `out`, oldest first; returns how many (0 when
 * none are pending), or -1 with errno set. Never blocks and never allocates.
 */
static inline int cgpiod_request_read_edges(cgpiod_request *req, cgpiod_edge *out, size_t max)
{
    if (max == 0)
        return 0;
    /* No poll first: v1's epoll_wait with a zero timeout and v2's non-blocking descriptor both
     * answer "nothing" at once, so a read after the event loop's wake-up costs no extra call. */
#if CGPIOD_GENERATION == 1
    struct epoll_event ready[CGPIOD_MAX_LINES];
    int nready;
    do {
        nready = epoll_wait(req->epoll_fd, ready, CGPIOD_MAX_LINES, 0);
    } while (nready < 0 && errno == EINTR);
    if (nready < 0)
        return -1;
    size_t count = 0;
    for (int r = 0; r < nready && count < max; r++) {
        unsigned int index = ready[r].data.u32;
        size_t room = max - count;
        if (room > CGPIOD_EVENTS_PER_READ)
            room = CGPIOD_EVENTS_PER_READ;
        int n = gpiod_line_event_read_multiple(req->lines[index], req->events, (unsigned int)room);
        if (n < 0)
            return -1;
        for (int e = 0; e < n; e++) {
            const struct gpiod_line_event *event = &req->events[e];
            out[count].index = index;
            out[count].rising = event->event_type == GPIOD_LINE_EVENT_RISING_EDGE;
            out[count].timestamp_ns = (uint64_t)event->ts.tv_sec * 1000000000ull
                                      + (uint64_t)event->ts.tv_nsec;
            count++;
        }
    }
    cgpiod_sort_edges(out, count);
    for (size_t i = 0; i < count; i++)
        out[i].seqno = ++req->next_seqno;
    return (int)count;
#else
    if (max > CGPIOD_EVENTS_PER_READ)
        max = CGPIOD_EVENTS_PER_READ;
    int n = gpiod_line_request_read_edge_events(req->request, req->buffer, max);
    if (n < 0)
        return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
    for (int e = 0; e < n; e++) {
        struct gpiod_edge_event *event = gpiod_edge_event_buffer_get_event(req->buffer, (unsigned long)e);
        unsigned int offset = gpiod_edge_event_get_line_offset(event);
        unsigned int index = 0;
        while (index < req->num_lines && req->offsets[index] != offset)
            index++;
        out[e].index = index;
        out[e].rising = gpiod_edge_event_get_event_type(event) == GPIOD_EDGE_EVENT_RISING_EDGE;
        out[e].timestamp_ns = gpiod_edge_event_get_timestamp_ns(event);
        out[e].seqno = gpiod_edge_event_get_global_seqno(event);
    }
    return n;
#endif
}

#endif /* CGPIOD_H */
