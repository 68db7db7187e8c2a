/*
 * cgpiod_v2.c — cgpiod.h on libgpiod 2.x (libgpiod.so.3): one request for all lines, the
 * kernel's debounce and sequence numbers, an edge event buffer made at request time.
 */
#include "cgpiod_internal.h"

#include <errno.h>
#include <fcntl.h>

#define BIND(field) CGPIOD_BIND(handle, file, api, field, "gpiod_" #field, reason, reason_size)

bool cgpiod_v2_bind(struct cgpiod_v2_api *api, void *handle, const char *file, char *reason, size_t reason_size)
{
    return BIND(api_version) && BIND(chip_open) && BIND(chip_close) && BIND(chip_get_info)
        && BIND(chip_info_get_name) && BIND(chip_info_get_label) && BIND(chip_info_get_num_lines)
        && BIND(chip_info_free) && BIND(chip_get_line_info) && BIND(line_info_get_name)
        && BIND(line_info_get_consumer) && BIND(line_info_is_used) && BIND(line_info_is_active_low)
        && BIND(line_info_get_direction) && BIND(line_info_get_bias) && BIND(line_info_free)
        && BIND(line_settings_new) && BIND(line_settings_free) && BIND(line_settings_set_direction)
        && BIND(line_settings_set_edge_detection) && BIND(line_settings_set_bias)
        && BIND(line_settings_set_active_low) && BIND(line_settings_set_debounce_period_us)
        && BIND(line_settings_set_event_clock) && BIND(line_settings_set_output_value)
        && BIND(line_config_new) && BIND(line_config_free) && BIND(line_config_add_line_settings)
        && BIND(request_config_new) && BIND(request_config_free) && BIND(request_config_set_consumer)
        && BIND(request_config_set_event_buffer_size) && BIND(chip_request_lines)
        && BIND(line_request_release) && BIND(line_request_get_fd) && BIND(line_request_get_value)
        && BIND(line_request_set_value) && BIND(line_request_read_edge_events)
        && BIND(edge_event_buffer_new) && BIND(edge_event_buffer_free) && BIND(edge_event_buffer_get_event)
        && BIND(edge_event_get_line_offset) && BIND(edge_event_get_event_type)
        && BIND(edge_event_get_timestamp_ns) && BIND(edge_event_get_global_seqno);
}

int cgpiod_v2_chip_get_info(cgpiod_chip *chip, cgpiod_chip_info *out)
{
    const struct cgpiod_v2_api *api = &chip->lib->v2;
    struct gpiod_chip_info *info = api->chip_get_info(chip->raw);
    if (!info)
        return -1;
    cgpiod_copy_name(out->name, api->chip_info_get_name(info));
    cgpiod_copy_name(out->label, api->chip_info_get_label(info));
    out->num_lines = (unsigned int)api->chip_info_get_num_lines(info);
    api->chip_info_free(info);
    return 0;
}

int cgpiod_v2_chip_get_line_info(cgpiod_chip *chip, unsigned int offset, cgpiod_line_info *out)
{
    const struct cgpiod_v2_api *api = &chip->lib->v2;
    struct gpiod_line_info *info = api->chip_get_line_info(chip->raw, offset);
    if (!info)
        return -1;
    cgpiod_copy_name(out->name, api->line_info_get_name(info));
    cgpiod_copy_name(out->consumer, api->line_info_get_consumer(info));
    out->used = api->line_info_is_used(info);
    out->active_low = api->line_info_is_active_low(info);
    out->direction = api->line_info_get_direction(info) == CGPIOD_V2_DIRECTION_OUTPUT ? CGPIOD_DIRECTION_OUTPUT
                                                                                     : CGPIOD_DIRECTION_INPUT;
    switch (api->line_info_get_bias(info)) {
    case CGPIOD_V2_BIAS_DISABLED: out->bias = CGPIOD_BIAS_DISABLED; break;
    case CGPIOD_V2_BIAS_PULL_UP: out->bias = CGPIOD_BIAS_PULL_UP; break;
    case CGPIOD_V2_BIAS_PULL_DOWN: out->bias = CGPIOD_BIAS_PULL_DOWN; break;
    default: out->bias = CGPIOD_BIAS_UNKNOWN; break;
    }
    api->line_info_free(info);
    return 0;
}

static int cgpiod_v2_bias(enum cgpiod_bias bias)
{
    switch (bias) {
    case CGPIOD_BIAS_DISABLED: return CGPIOD_V2_BIAS_DISABLED;
    case CGPIOD_BIAS_PULL_UP: return CGPIOD_V2_BIAS_PULL_UP;
    case CGPIOD_BIAS_PULL_DOWN: return CGPIOD_V2_BIAS_PULL_DOWN;
    default: return CGPIOD_V2_BIAS_AS_IS;
    }
}

/* Requests `config`'s lines under `consumer`, freeing the configuration either way. */
static struct gpiod_line_request *cgpiod_v2_request(const struct cgpiod_v2_api *api, struct gpiod_chip *chip,
                                                    struct gpiod_line_config *config, const char *consumer,
                                                    size_t event_buffer_size)
{
    struct gpiod_line_request *request = NULL;
    struct gpiod_request_config *req_cfg = api->request_config_new();
    if (req_cfg) {
        api->request_config_set_consumer(req_cfg, consumer);
        if (event_buffer_size)
            api->request_config_set_event_buffer_size(req_cfg, event_buffer_size);
        request = api->chip_request_lines(chip, req_cfg, config);
        int saved = errno;
        api->request_config_free(req_cfg);
        errno = saved;
    }
    int saved = errno;
    api->line_config_free(config);
    errno = saved;
    return request;
}

typedef void (*cgpiod_v2_fill)(const struct cgpiod_v2_api *api, struct gpiod_line_settings *settings,
                               size_t index, const void *lines);

/* A line configuration with one settings object per line, filled by `fill` for line `index`;
 * NULL with errno set and `*failed_index` on failure. */
static struct gpiod_line_config *cgpiod_v2_line_config(const struct cgpiod_v2_api *api, const unsigned int *offsets,
                                                       size_t num_lines, cgpiod_v2_fill fill, const void *lines,
                                                       int *failed_index)
{
    struct gpiod_line_config *config = api->line_config_new();
    if (!config)
        return NULL;
    for (size_t i = 0; i < num_lines; i++) {
        struct gpiod_line_settings *settings = api->line_settings_new();
        if (!settings) {
            api->line_config_free(config);
            return NULL;
        }
        fill(api, settings, i, lines);
        int rc = api->line_config_add_line_settings(config, &offsets[i], 1, settings);
        int saved = errno;
        api->line_settings_free(settings);
        if (rc < 0) {
            *failed_index = (int)i;
            api->line_config_free(config);
            errno = saved;
            return NULL;
        }
    }
    return config;
}

static void cgpiod_v2_fill_input(const struct cgpiod_v2_api *api, struct gpiod_line_settings *settings,
                                 size_t index, const void *lines)
{
    const cgpiod_input_line *line = &((const cgpiod_input_line *)lines)[index];
    api->line_settings_set_direction(settings, CGPIOD_V2_DIRECTION_INPUT);
    api->line_settings_set_edge_detection(settings, CGPIOD_V2_EDGE_BOTH);
    api->line_settings_set_bias(settings, cgpiod_v2_bias(line->bias));
    api->line_settings_set_active_low(settings, line->active_low);
    api->line_settings_set_debounce_period_us(settings, line->debounce_us);
    api->line_settings_set_event_clock(settings, CGPIOD_V2_CLOCK_MONOTONIC);
}

static void cgpiod_v2_fill_output(const struct cgpiod_v2_api *api, struct gpiod_line_settings *settings,
                                  size_t index, const void *lines)
{
    const cgpiod_output_line *line = &((const cgpiod_output_line *)lines)[index];
    api->line_settings_set_direction(settings, CGPIOD_V2_DIRECTION_OUTPUT);
    api->line_settings_set_active_low(settings, line->active_low);
    api->line_settings_set_output_value(settings, line->initial_value ? CGPIOD_V2_VALUE_ACTIVE
                                                                      : CGPIOD_V2_VALUE_INACTIVE);
}

int cgpiod_v2_request_inputs(cgpiod_request *req, cgpiod_chip *chip, const cgpiod_input_line *lines,
                             const char *consumer, int *failed_index)
{
    const struct cgpiod_v2_api *api = &chip->lib->v2;
    struct gpiod_line_config *config =
        cgpiod_v2_line_config(api, req->offsets, req->num_lines, cgpiod_v2_fill_input, lines, failed_index);
    if (!config)
        return -1;
    req->request = cgpiod_v2_request(api, chip->raw, config, consumer, CGPIOD_EVENTS_PER_LINE * req->num_lines);
    if (!req->request)
        return -1;
    req->buffer = api->edge_event_buffer_new(CGPIOD_EVENTS_PER_READ);
    if (!req->buffer)
        return -1;
    /* Reads never block: an empty buffer reads as EAGAIN (see cgpiod_v2_request_read_edges). */
    int fd = api->line_request_get_fd(req->request);
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
        return -1;
    return 0;
}

int cgpiod_v2_request_outputs(cgpiod_request *req, cgpiod_chip *chip, const cgpiod_output_line *lines,
                              const char *consumer, int *failed_index)
{
    const struct cgpiod_v2_api *api = &chip->lib->v2;
    struct gpiod_line_config *config =
        cgpiod_v2_line_config(api, req->offsets, req->num_lines, cgpiod_v2_fill_output, lines, failed_index);
    if (!config)
        return -1;
    req->request = cgpiod_v2_request(api, chip->raw, config, consumer, 0);
    return req->request ? 0 : -1;
}

void cgpiod_v2_request_release(cgpiod_request *req)
{
    const struct cgpiod_v2_api *api = &req->lib->v2;
    if (req->request)
        api->line_request_release(req->request);
    if (req->buffer)
        api->edge_event_buffer_free(req->buffer);
}

int cgpiod_v2_request_get_value(cgpiod_request *req, unsigned int index)
{
    int value = req->lib->v2.line_request_get_value(req->request, req->offsets[index]);
    return value < 0 ? -1 : value;
}

int cgpiod_v2_request_set_value(cgpiod_request *req, unsigned int index, bool value)
{
    return req->lib->v2.line_request_set_value(req->request, req->offsets[index],
                                               value ? CGPIOD_V2_VALUE_ACTIVE : CGPIOD_V2_VALUE_INACTIVE);
}

int cgpiod_v2_request_read_edges(cgpiod_request *req, cgpiod_edge *out, size_t max)
{
    const struct cgpiod_v2_api *api = &req->lib->v2;
    if (max > CGPIOD_EVENTS_PER_READ)
        max = CGPIOD_EVENTS_PER_READ;
    /* No poll first: the non-blocking descriptor answers "nothing" at once. */
    int n = api->line_request_read_edge_events(req->request, req->buffer, max);
    if (n < 0)
        return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
    for (int e = 0; e < n; e++) {
        struct gpiod_edge_event *event = api->edge_event_buffer_get_event(req->buffer, (unsigned long)e);
        unsigned int offset = api->edge_event_get_line_offset(event);
        unsigned int index = 0;
        while (index < req->num_lines && req->offsets[index] != offset)
            index++;
        out[e].index = index;
        out[e].rising = api->edge_event_get_event_type(event) == CGPIOD_V2_EVENT_RISING_EDGE;
        out[e].timestamp_ns = api->edge_event_get_timestamp_ns(event);
        out[e].seqno = api->edge_event_get_global_seqno(event);
    }
    return n;
}
