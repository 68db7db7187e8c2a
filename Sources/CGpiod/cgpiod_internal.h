/*
 * What the two generations' code shares inside CGpiod: the parts of libgpiod's own headers it
 * needs (opaque types, the constants it passes, the signatures it binds), written out here so
 * that building needs no <gpiod.h>, and the structures behind cgpiod.h's handles.
 *
 * The values are libgpiod's ABI: 1.6.3's gpiod.h (soname libgpiod.so.2) and 2.x's (soname
 * libgpiod.so.3, checked against 2.3). A soname names one ABI, so they cannot change under us.
 */
#ifndef CGPIOD_INTERNAL_H
#define CGPIOD_INTERNAL_H

#include "cgpiod.h"

#include <cdynamic_library.h>

#include <stddef.h>
#include <time.h>

/* ---- libgpiod's opaque types (both generations call their chip `struct gpiod_chip`) ----- */

struct gpiod_chip;
/* v1 */
struct gpiod_line;
/* v2 */
struct gpiod_chip_info;
struct gpiod_line_info;
struct gpiod_line_settings;
struct gpiod_line_config;
struct gpiod_request_config;
struct gpiod_line_request;
struct gpiod_edge_event;
struct gpiod_edge_event_buffer;

/* ---- libgpiod 1.6 ----------------------------------------------------------------------- */

/* enum gpiod_line_request_flags (GPIOD_BIT(n)) */
#define CGPIOD_V1_FLAG_ACTIVE_LOW (1 << 2)
#define CGPIOD_V1_FLAG_BIAS_DISABLE (1 << 3)
#define CGPIOD_V1_FLAG_BIAS_PULL_DOWN (1 << 4)
#define CGPIOD_V1_FLAG_BIAS_PULL_UP (1 << 5)
/* gpiod_line_direction(), gpiod_line_active_state(), gpiod_line_bias() */
#define CGPIOD_V1_DIRECTION_OUTPUT 2
#define CGPIOD_V1_ACTIVE_STATE_LOW 2
#define CGPIOD_V1_BIAS_DISABLE 2
#define CGPIOD_V1_BIAS_PULL_UP 3
#define CGPIOD_V1_BIAS_PULL_DOWN 4
/* struct gpiod_line_event's event_type */
#define CGPIOD_V1_EVENT_RISING_EDGE 1

/* struct gpiod_line_event, a public structure of 1.6's ABI. */
struct cgpiod_v1_line_event {
    struct timespec ts;
    int event_type;
};

struct cgpiod_v1_api {
    const char *(*version_string)(void);
    struct gpiod_chip *(*chip_open)(const char *path);
    void (*chip_close)(struct gpiod_chip *chip);
    const char *(*chip_name)(struct gpiod_chip *chip);
    const char *(*chip_label)(struct gpiod_chip *chip);
    unsigned int (*chip_num_lines)(struct gpiod_chip *chip);
    struct gpiod_line *(*chip_get_line)(struct gpiod_chip *chip, unsigned int offset);
    int (*line_update)(struct gpiod_line *line);
    const char *(*line_name)(struct gpiod_line *line);
    const char *(*line_consumer)(struct gpiod_line *line);
    bool (*line_is_used)(struct gpiod_line *line);
    int (*line_active_state)(struct gpiod_line *line);
    int (*line_direction)(struct gpiod_line *line);
    int (*line_bias)(struct gpiod_line *line);
    bool (*line_is_requested)(struct gpiod_line *line);
    void (*line_release)(struct gpiod_line *line);
    int (*line_request_both_edges_events_flags)(struct gpiod_line *line, const char *consumer, int flags);
    int (*line_event_get_fd)(struct gpiod_line *line);
    int (*line_request_output_flags)(struct gpiod_line *line, const char *consumer, int flags, int default_val);
    int (*line_get_value)(struct gpiod_line *line);
    int (*line_set_value)(struct gpiod_line *line, int value);
    int (*line_event_read_multiple)(struct gpiod_line *line, struct cgpiod_v1_line_event *events,
                                    unsigned int num_events);
};

/* ---- libgpiod 2.x ----------------------------------------------------------------------- */

/* enum gpiod_line_value, _direction, _edge, _bias, _clock, gpiod_edge_event_type */
#define CGPIOD_V2_VALUE_INACTIVE 0
#define CGPIOD_V2_VALUE_ACTIVE 1
#define CGPIOD_V2_DIRECTION_INPUT 2
#define CGPIOD_V2_DIRECTION_OUTPUT 3
#define CGPIOD_V2_EDGE_BOTH 4
#define CGPIOD_V2_BIAS_AS_IS 1
#define CGPIOD_V2_BIAS_DISABLED 3
#define CGPIOD_V2_BIAS_PULL_UP 4
#define CGPIOD_V2_BIAS_PULL_DOWN 5
#define CGPIOD_V2_CLOCK_MONOTONIC 1
#define CGPIOD_V2_EVENT_RISING_EDGE 1

/* The enums are passed and returned as int: C gives these enums int's size and ABI. */
struct cgpiod_v2_api {
    const char *(*api_version)(void);
    struct gpiod_chip *(*chip_open)(const char *path);
    void (*chip_close)(struct gpiod_chip *chip);
    struct gpiod_chip_info *(*chip_get_info)(struct gpiod_chip *chip);
    const char *(*chip_info_get_name)(struct gpiod_chip_info *info);
    const char *(*chip_info_get_label)(struct gpiod_chip_info *info);
    size_t (*chip_info_get_num_lines)(struct gpiod_chip_info *info);
    void (*chip_info_free)(struct gpiod_chip_info *info);
    struct gpiod_line_info *(*chip_get_line_info)(struct gpiod_chip *chip, unsigned int offset);
    const char *(*line_info_get_name)(struct gpiod_line_info *info);
    const char *(*line_info_get_consumer)(struct gpiod_line_info *info);
    bool (*line_info_is_used)(struct gpiod_line_info *info);
    bool (*line_info_is_active_low)(struct gpiod_line_info *info);
    int (*line_info_get_direction)(struct gpiod_line_info *info);
    int (*line_info_get_bias)(struct gpiod_line_info *info);
    void (*line_info_free)(struct gpiod_line_info *info);
    struct gpiod_line_settings *(*line_settings_new)(void);
    void (*line_settings_free)(struct gpiod_line_settings *settings);
    int (*line_settings_set_direction)(struct gpiod_line_settings *settings, int direction);
    int (*line_settings_set_edge_detection)(struct gpiod_line_settings *settings, int edge);
    int (*line_settings_set_bias)(struct gpiod_line_settings *settings, int bias);
    void (*line_settings_set_active_low)(struct gpiod_line_settings *settings, bool active_low);
    void (*line_settings_set_debounce_period_us)(struct gpiod_line_settings *settings, unsigned long period);
    int (*line_settings_set_event_clock)(struct gpiod_line_settings *settings, int event_clock);
    int (*line_settings_set_output_value)(struct gpiod_line_settings *settings, int value);
    struct gpiod_line_config *(*line_config_new)(void);
    void (*line_config_free)(struct gpiod_line_config *config);
    int (*line_config_add_line_settings)(struct gpiod_line_config *config, const unsigned int *offsets,
                                         size_t num_offsets, struct gpiod_line_settings *settings);
    struct gpiod_request_config *(*request_config_new)(void);
    void (*request_config_free)(struct gpiod_request_config *config);
    void (*request_config_set_consumer)(struct gpiod_request_config *config, const char *consumer);
    void (*request_config_set_event_buffer_size)(struct gpiod_request_config *config, size_t size);
    struct gpiod_line_request *(*chip_request_lines)(struct gpiod_chip *chip, struct gpiod_request_config *req_cfg,
                                                     struct gpiod_line_config *line_cfg);
    void (*line_request_release)(struct gpiod_line_request *request);
    int (*line_request_get_fd)(struct gpiod_line_request *request);
    int (*line_request_get_value)(struct gpiod_line_request *request, unsigned int offset);
    int (*line_request_set_value)(struct gpiod_line_request *request, unsigned int offset, int value);
    int (*line_request_read_edge_events)(struct gpiod_line_request *request, struct gpiod_edge_event_buffer *buffer,
                                         size_t max_events);
    struct gpiod_edge_event_buffer *(*edge_event_buffer_new)(size_t capacity);
    void (*edge_event_buffer_free)(struct gpiod_edge_event_buffer *buffer);
    struct gpiod_edge_event *(*edge_event_buffer_get_event)(struct gpiod_edge_event_buffer *buffer, unsigned long index);
    unsigned int (*edge_event_get_line_offset)(struct gpiod_edge_event *event);
    int (*edge_event_get_event_type)(struct gpiod_edge_event *event);
    uint64_t (*edge_event_get_timestamp_ns)(struct gpiod_edge_event *event);
    unsigned long (*edge_event_get_global_seqno)(struct gpiod_edge_event *event);
};

/* ---- the handles ------------------------------------------------------------------------ */

struct cgpiod_library {
    int generation;
    /* Only the generation's own table is filled. */
    struct cgpiod_v1_api v1;
    struct cgpiod_v2_api v2;
};

struct cgpiod_chip {
    const cgpiod_library *lib;
    struct gpiod_chip *raw;
};

struct cgpiod_request {
    const cgpiod_library *lib;
    unsigned int num_lines;
    unsigned int offsets[CGPIOD_MAX_LINES];
    /* v1: one kernel request per line, so each line keeps its own flags; the lines belong to
     * the chip, which must stay open while the request lives. Edge requests have one
     * descriptor per line; an epoll set makes them one to wait on. */
    struct gpiod_line *lines[CGPIOD_MAX_LINES];
    int epoll_fd;
    struct cgpiod_v1_line_event events[CGPIOD_EVENTS_PER_READ];
    uint64_t next_seqno;
    /* v2 */
    struct gpiod_line_request *request;
    struct gpiod_edge_event_buffer *buffer;
};

/* Looks up `name` in `handle` into `api->field`; false with `reason` naming the missing function. */
#define CGPIOD_BIND(handle, file, api, field, name, reason, size)                                      \
    cdynamic_library_bind(handle, file, "function", name, &(api)->field, sizeof((api)->field), reason, size)

void cgpiod_copy_name(char *dst, const char *src);

/* Each generation's side of cgpiod.h, called by cgpiod.c for a library of that generation. */
bool cgpiod_v1_bind(struct cgpiod_v1_api *api, void *handle, const char *file, char *reason, size_t reason_size);
int cgpiod_v1_chip_get_info(cgpiod_chip *chip, cgpiod_chip_info *out);
int cgpiod_v1_chip_get_line_info(cgpiod_chip *chip, unsigned int offset, cgpiod_line_info *out);
int cgpiod_v1_request_inputs(cgpiod_request *req, cgpiod_chip *chip, const cgpiod_input_line *lines,
                             const char *consumer, int *failed_index);
int cgpiod_v1_request_outputs(cgpiod_request *req, cgpiod_chip *chip, const cgpiod_output_line *lines,
                              const char *consumer, int *failed_index);
void cgpiod_v1_request_release(cgpiod_request *req);
int cgpiod_v1_request_get_value(cgpiod_request *req, unsigned int index);
int cgpiod_v1_request_set_value(cgpiod_request *req, unsigned int index, bool value);
int cgpiod_v1_request_read_edges(cgpiod_request *req, cgpiod_edge *out, size_t max);

bool cgpiod_v2_bind(struct cgpiod_v2_api *api, void *handle, const char *file, char *reason, size_t reason_size);
int cgpiod_v2_chip_get_info(cgpiod_chip *chip, cgpiod_chip_info *out);
int cgpiod_v2_chip_get_line_info(cgpiod_chip *chip, unsigned int offset, cgpiod_line_info *out);
int cgpiod_v2_request_inputs(cgpiod_request *req, cgpiod_chip *chip, const cgpiod_input_line *lines,
                             const char *consumer, int *failed_index);
int cgpiod_v2_request_outputs(cgpiod_request *req, cgpiod_chip *chip, const cgpiod_output_line *lines,
                              const char *consumer, int *failed_index);
void cgpiod_v2_request_release(cgpiod_request *req);
int cgpiod_v2_request_get_value(cgpiod_request *req, unsigned int index);
int cgpiod_v2_request_set_value(cgpiod_request *req, unsigned int index, bool value);
int cgpiod_v2_request_read_edges(cgpiod_request *req, cgpiod_edge *out, size_t max);

#endif /* CGPIOD_INTERNAL_H */
