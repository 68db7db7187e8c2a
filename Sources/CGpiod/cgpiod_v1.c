/*
 * cgpiod_v1.c — cgpiod.h on libgpiod 1.6 (libgpiod.so.2): one kernel request per line, an
 * epoll set over the lines' event descriptors, software sequence numbers.
 */
#include "cgpiod_internal.h"

#include <errno.h>
#include <sys/epoll.h>
#include <unistd.h>

#define BIND(field) CGPIOD_BIND(handle, file, api, field, "gpiod_" #field, reason, reason_size)

bool cgpiod_v1_bind(struct cgpiod_v1_api *api, void *handle, const char *file, char *reason, size_t reason_size)
{
    return BIND(version_string) && BIND(chip_open) && BIND(chip_close) && BIND(chip_name) && BIND(chip_label)
        && BIND(chip_num_lines) && BIND(chip_get_line) && BIND(line_update) && BIND(line_name)
        && BIND(line_consumer) && BIND(line_is_used) && BIND(line_active_state) && BIND(line_direction)
        && BIND(line_bias) && BIND(line_is_requested) && BIND(line_release)
        && BIND(line_request_both_edges_events_flags) && BIND(line_event_get_fd)
        && BIND(line_request_output_flags) && BIND(line_get_value) && BIND(line_set_value)
        && BIND(line_event_read_multiple);
}

int cgpiod_v1_chip_get_info(cgpiod_chip *chip, cgpiod_chip_info *out)
{
    const struct cgpiod_v1_api *api = &chip->lib->v1;
    cgpiod_copy_name(out->name, api->chip_name(chip->raw));
    cgpiod_copy_name(out->label, api->chip_label(chip->raw));
    out->num_lines = api->chip_num_lines(chip->raw);
    return 0;
}

int cgpiod_v1_chip_get_line_info(cgpiod_chip *chip, unsigned int offset, cgpiod_line_info *out)
{
    const struct cgpiod_v1_api *api = &chip->lib->v1;
    struct gpiod_line *line = api->chip_get_line(chip->raw, offset);
    if (!line)
        return -1;
    if (api->line_update(line) < 0)
        return -1;
    cgpiod_copy_name(out->name, api->line_name(line));
    cgpiod_copy_name(out->consumer, api->line_consumer(line));
    out->used = api->line_is_used(line);
    out->active_low = api->line_active_state(line) == CGPIOD_V1_ACTIVE_STATE_LOW;
    out->direction = api->line_direction(line) == CGPIOD_V1_DIRECTION_OUTPUT ? CGPIOD_DIRECTION_OUTPUT
                                                                              : CGPIOD_DIRECTION_INPUT;
    switch (api->line_bias(line)) {
    case CGPIOD_V1_BIAS_DISABLE: out->bias = CGPIOD_BIAS_DISABLED; break;
    case CGPIOD_V1_BIAS_PULL_UP: out->bias = CGPIOD_BIAS_PULL_UP; break;
    case CGPIOD_V1_BIAS_PULL_DOWN: out->bias = CGPIOD_BIAS_PULL_DOWN; break;
    default: out->bias = CGPIOD_BIAS_UNKNOWN; break;
    }
    return 0;
}

static int cgpiod_v1_bias_flags(enum cgpiod_bias bias)
{
    switch (bias) {
    case CGPIOD_BIAS_DISABLED: return CGPIOD_V1_FLAG_BIAS_DISABLE;
    case CGPIOD_BIAS_PULL_UP: return CGPIOD_V1_FLAG_BIAS_PULL_UP;
    case CGPIOD_BIAS_PULL_DOWN: return CGPIOD_V1_FLAG_BIAS_PULL_DOWN;
    default: return 0;
    }
}

int cgpiod_v1_request_inputs(cgpiod_request *req, cgpiod_chip *chip, const cgpiod_input_line *lines,
                             const char *consumer, int *failed_index)
{
    const struct cgpiod_v1_api *api = &chip->lib->v1;
    req->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    if (req->epoll_fd < 0)
        return -1;
    for (unsigned int i = 0; i < req->num_lines; i++) {
        *failed_index = (int)i;
        struct gpiod_line *line = api->chip_get_line(chip->raw, lines[i].offset);
        if (!line)
            return -1;
        int flags = cgpiod_v1_bias_flags(lines[i].bias);
        if (lines[i].active_low)
            flags |= CGPIOD_V1_FLAG_ACTIVE_LOW;
        if (api->line_request_both_edges_events_flags(line, consumer, flags) < 0)
            return -1;
        req->lines[i] = line;
        struct epoll_event ev = { .events = EPOLLIN | EPOLLPRI, .data = { .u32 = (uint32_t)i } };
        if (epoll_ctl(req->epoll_fd, EPOLL_CTL_ADD, api->line_event_get_fd(line), &ev) < 0)
            return -1;
    }
    *failed_index = -1;
    return 0;
}

int cgpiod_v1_request_outputs(cgpiod_request *req, cgpiod_chip *chip, const cgpiod_output_line *lines,
                              const char *consumer, int *failed_index)
{
    const struct cgpiod_v1_api *api = &chip->lib->v1;
    for (unsigned int i = 0; i < req->num_lines; i++) {
        *failed_index = (int)i;
        struct gpiod_line *line = api->chip_get_line(chip->raw, lines[i].offset);
        if (!line)
            return -1;
        int flags = lines[i].active_low ? CGPIOD_V1_FLAG_ACTIVE_LOW : 0;
        if (api->line_request_output_flags(line, consumer, flags, lines[i].initial_value ? 1 : 0) < 0)
            return -1;
        req->lines[i] = line;
    }
    *failed_index = -1;
    return 0;
}

void cgpiod_v1_request_release(cgpiod_request *req)
{
    const struct cgpiod_v1_api *api = &req->lib->v1;
    for (unsigned int i = 0; i < req->num_lines; i++)
        if (req->lines[i] && api->line_is_requested(req->lines[i]))
            api->line_release(req->lines[i]);
    if (req->epoll_fd >= 0)
        close(req->epoll_fd);
}

int cgpiod_v1_request_get_value(cgpiod_request *req, unsigned int index)
{
    return req->lib->v1.line_get_value(req->lines[index]);
}

int cgpiod_v1_request_set_value(cgpiod_request *req, unsigned int index, bool value)
{
    return req->lib->v1.line_set_value(req->lines[index], value ? 1 : 0);
}

/* Sorts the first `count` edges by time; they come per line, and a caller wants them in the
 * order they happened. Insertion sort: a few dozen events, mostly in order already. */
static void cgpiod_sort_edges(cgpiod_edge *edges, size_t count)
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

int cgpiod_v1_request_read_edges(cgpiod_request *req, cgpiod_edge *out, size_t max)
{
    /* No poll first: epoll_wait with a zero timeout answers "nothing" at once, so a read after
     * the event loop's wake-up costs no extra call. */
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
        int n = req->lib->v1.line_event_read_multiple(req->lines[index], req->events, (unsigned int)room);
        if (n < 0)
            return -1;
        for (int e = 0; e < n; e++) {
            const struct cgpiod_v1_line_event *event = &req->events[e];
            out[count].index = index;
            out[count].rising = event->event_type == CGPIOD_V1_EVENT_RISING_EDGE;
            out[count].timestamp_ns = (uint64_t)event->ts.tv_sec * 1000000000ull + (uint64_t)event->ts.tv_nsec;
            count++;
        }
    }
    cgpiod_sort_edges(out, count);
    for (size_t i = 0; i < count; i++)
        out[i].seqno = ++req->next_seqno;
    return (int)count;
}
