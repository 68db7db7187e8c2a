/*
 * cgpiod.h — one neutral C API over libgpiod 1.6 (v1 API) and libgpiod 2.x (v2 API), loaded at
 * run time.
 *
 * Nothing here includes <gpiod.h>: the library is opened with dlopen (libgpiod.so.3 is 2.x,
 * libgpiod.so.2 is 1.6) and every function the backend uses is looked up and checked when it
 * is opened, so one binary serves both generations and building needs no libgpiod headers.
 * Swift sees only the `cgpiod_*` names below.
 *
 * Conventions (libgpiod's): functions return 0 or a non-negative count on success and -1 with
 * errno set on failure; pointers are NULL on failure with errno set. Values and edges are
 * *logical*: active-low inversion is applied by the kernel, so 1 / rising means "active".
 *
 * Memory: a library, a chip and a request are allocated when opened or requested; reading edges
 * and values and writing values never allocate (v2 reads into the gpiod_edge_event_buffer made
 * at request time, v1 into a fixed array inside the request).
 */
#ifndef CGPIOD_H
#define CGPIOD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
/* Room for the reason a library could not be opened. */
#define CGPIOD_REASON_SIZE 512

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

/* An opened libgpiod: its generation and the functions bound from it. Never closed. */
typedef struct cgpiod_library cgpiod_library;
/* An open chip; it remembers its library. */
typedef struct cgpiod_chip cgpiod_chip;
/* A request of input or output lines; it remembers its chip's library. */
typedef struct cgpiod_request cgpiod_request;

/* ---- the library ------------------------------------------------------------------------ */

/*
 * Opens `file` (a file name dlopen searches for, such as "libgpiod.so.3", or a path) as libgpiod
 * of `generation` (1 for 1.6, 2 for 2.x) and binds every function the backend calls. On failure
 * returns NULL with `reason` saying what went wrong (dlopen's message, or the first function the
 * file lacks).
 */
const cgpiod_library *cgpiod_library_open(const char *file, int generation, char *reason, size_t reason_size);

/* 1 or 2. */
int cgpiod_library_generation(const cgpiod_library *lib);
/* The library's own version text, e.g. "1.6.3" or "2.3". */
const char *cgpiod_library_version(const cgpiod_library *lib);
/* The oldest kernel this generation's GPIO interface exists on, as major * 100 + minor: the
 * character device's v1 interface came with 4.8, the v2 interface libgpiod 2 needs with 5.10. */
unsigned int cgpiod_library_kernel_needed(const cgpiod_library *lib);
/* Whether the kernel debounces input edges for this generation (only v2 can ask it to). */
bool cgpiod_library_kernel_debounces(const cgpiod_library *lib);

/* ---- chips ------------------------------------------------------------------------------ */

cgpiod_chip *cgpiod_chip_open(const cgpiod_library *lib, const char *path);
void cgpiod_chip_close(cgpiod_chip *chip);
int cgpiod_chip_get_info(cgpiod_chip *chip, cgpiod_chip_info *out);
int cgpiod_chip_get_line_info(cgpiod_chip *chip, unsigned int offset, cgpiod_line_info *out);

/* ---- requests --------------------------------------------------------------------------- */

/*
 * Takes `lines` as inputs with edge detection on both edges, all or none. On failure returns
 * NULL with errno set and `*failed_index` naming the line that failed (or -1 when unknown).
 * The chip must stay open while the request lives.
 */
cgpiod_request *cgpiod_request_inputs(cgpiod_chip *chip, const cgpiod_input_line *lines,
                                      size_t num_lines, const char *consumer, int *failed_index);

/*
 * Takes `lines` as outputs, all or none, each driven to its initial value by the request
 * itself (the kernel sets the level as it makes the line an output: no glitch).
 */
cgpiod_request *cgpiod_request_outputs(cgpiod_chip *chip, const cgpiod_output_line *lines,
                                       size_t num_lines, const char *consumer, int *failed_index);

void cgpiod_request_release(cgpiod_request *req);

/* A descriptor that polls readable when edge events are pending (inputs only). */
int cgpiod_request_fd(const cgpiod_request *req);

/* The line's logical value (1 active, 0 inactive), or -1 with errno set. */
int cgpiod_request_get_value(cgpiod_request *req, unsigned int index);

int cgpiod_request_set_value(cgpiod_request *req, unsigned int index, bool value);

/* Whether edge events are waiting: 1 yes, 0 no, -1 with errno set. Never blocks. */
int cgpiod_request_has_events(const cgpiod_request *req);

/*
 * Reads up to `max` pending edge events into `out`, oldest first; returns how many (0 when
 * none are pending), or -1 with errno set. Never blocks and never allocates.
 */
int cgpiod_request_read_edges(cgpiod_request *req, cgpiod_edge *out, size_t max);

#endif /* CGPIOD_H */
