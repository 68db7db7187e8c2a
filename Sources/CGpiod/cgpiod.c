/*
 * cgpiod.c — opening libgpiod at run time, and the calls of cgpiod.h, each handed to the
 * library's generation (cgpiod_v1.c, cgpiod_v2.c).
 */
#include "cgpiod_internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const cgpiod_library *cgpiod_library_open(const char *file, int generation, char *reason, size_t reason_size)
{
    if (generation != 1 && generation != 2) {
        snprintf(reason, reason_size, "libgpiod has no generation %d (1 is 1.6, 2 is 2.x)", generation);
        return NULL;
    }
    /* RTLD_LOCAL: both generations export gpiod_chip_open; neither may shadow the other. */
    void *handle = cdynamic_library_open(file, RTLD_NOW | RTLD_LOCAL, reason, reason_size);
    if (!handle)
        return NULL;
    cgpiod_library *lib = (cgpiod_library *)calloc(1, sizeof(*lib));
    if (!lib) {
        snprintf(reason, reason_size, "out of memory opening %s", file);
        dlclose(handle);
        return NULL;
    }
    lib->generation = generation;
    bool bound = generation == 1 ? cgpiod_v1_bind(&lib->v1, handle, file, reason, reason_size)
                                 : cgpiod_v2_bind(&lib->v2, handle, file, reason, reason_size);
    if (!bound) {
        free(lib);
        dlclose(handle);
        return NULL;
    }
    return lib;
}

int cgpiod_library_generation(const cgpiod_library *lib) { return lib->generation; }

const char *cgpiod_library_version(const cgpiod_library *lib)
{
    return lib->generation == 1 ? lib->v1.version_string() : lib->v2.api_version();
}

unsigned int cgpiod_library_kernel_needed(const cgpiod_library *lib) { return lib->generation == 1 ? 408 : 510; }

bool cgpiod_library_kernel_debounces(const cgpiod_library *lib) { return lib->generation == 2; }

void cgpiod_copy_name(char *dst, const char *src)
{
    dst[0] = '\0';
    if (src) {
        strncpy(dst, src, CGPIOD_NAME_SIZE - 1);
        dst[CGPIOD_NAME_SIZE - 1] = '\0';
    }
}

/* ---- chips ------------------------------------------------------------------------------ */

cgpiod_chip *cgpiod_chip_open(const cgpiod_library *lib, const char *path)
{
    cgpiod_chip *chip = (cgpiod_chip *)calloc(1, sizeof(*chip));
    if (!chip)
        return NULL;
    chip->lib = lib;
    chip->raw = lib->generation == 1 ? lib->v1.chip_open(path) : lib->v2.chip_open(path);
    if (!chip->raw) {
        int saved = errno;
        free(chip);
        errno = saved;
        return NULL;
    }
    return chip;
}

void cgpiod_chip_close(cgpiod_chip *chip)
{
    if (!chip)
        return;
    int saved = errno;
    if (chip->lib->generation == 1)
        chip->lib->v1.chip_close(chip->raw);
    else
        chip->lib->v2.chip_close(chip->raw);
    free(chip);
    errno = saved;
}

int cgpiod_chip_get_info(cgpiod_chip *chip, cgpiod_chip_info *out)
{
    return chip->lib->generation == 1 ? cgpiod_v1_chip_get_info(chip, out) : cgpiod_v2_chip_get_info(chip, out);
}

int cgpiod_chip_get_line_info(cgpiod_chip *chip, unsigned int offset, cgpiod_line_info *out)
{
    return chip->lib->generation == 1 ? cgpiod_v1_chip_get_line_info(chip, offset, out)
                                      : cgpiod_v2_chip_get_line_info(chip, offset, out);
}

/* ---- requests --------------------------------------------------------------------------- */

/* A request for `num_lines` lines whose offsets are read from `offsets`, one every `stride` bytes
 * (the `offset` member of an array of line settings); NULL with errno set. */
static cgpiod_request *cgpiod_request_alloc(const cgpiod_chip *chip, const unsigned int *offsets, size_t stride,
                                            size_t num_lines)
{
    if (num_lines == 0 || num_lines > CGPIOD_MAX_LINES) {
        errno = EINVAL;
        return NULL;
    }
    cgpiod_request *req = (cgpiod_request *)calloc(1, sizeof(*req));
    if (!req)
        return NULL;
    req->lib = chip->lib;
    req->num_lines = (unsigned int)num_lines;
    req->epoll_fd = -1;
    for (size_t i = 0; i < num_lines; i++)
        req->offsets[i] = *(const unsigned int *)((const char *)offsets + i * stride);
    return req;
}

/* The request when its generation took the lines (`rc` 0); released, NULL, otherwise. */
static cgpiod_request *cgpiod_request_taken(cgpiod_request *req, int rc)
{
    if (rc < 0) {
        cgpiod_request_release(req);
        return NULL;
    }
    return req;
}

cgpiod_request *cgpiod_request_inputs(cgpiod_chip *chip, const cgpiod_input_line *lines,
                                      size_t num_lines, const char *consumer, int *failed_index)
{
    *failed_index = -1;
    cgpiod_request *req = cgpiod_request_alloc(chip, &lines[0].offset, sizeof(lines[0]), num_lines);
    if (!req)
        return NULL;
    return cgpiod_request_taken(req, chip->lib->generation == 1
                                         ? cgpiod_v1_request_inputs(req, chip, lines, consumer, failed_index)
                                         : cgpiod_v2_request_inputs(req, chip, lines, consumer, failed_index));
}

cgpiod_request *cgpiod_request_outputs(cgpiod_chip *chip, const cgpiod_output_line *lines,
                                       size_t num_lines, const char *consumer, int *failed_index)
{
    *failed_index = -1;
    cgpiod_request *req = cgpiod_request_alloc(chip, &lines[0].offset, sizeof(lines[0]), num_lines);
    if (!req)
        return NULL;
    return cgpiod_request_taken(req, chip->lib->generation == 1
                                         ? cgpiod_v1_request_outputs(req, chip, lines, consumer, failed_index)
                                         : cgpiod_v2_request_outputs(req, chip, lines, consumer, failed_index));
}

void cgpiod_request_release(cgpiod_request *req)
{
    if (!req)
        return;
    int saved = errno;
    if (req->lib->generation == 1)
        cgpiod_v1_request_release(req);
    else
        cgpiod_v2_request_release(req);
    free(req);
    errno = saved;
}

int cgpiod_request_fd(const cgpiod_request *req)
{
    return req->lib->generation == 1 ? req->epoll_fd : req->lib->v2.line_request_get_fd(req->request);
}

int cgpiod_request_get_value(cgpiod_request *req, unsigned int index)
{
    if (index >= req->num_lines) {
        errno = EINVAL;
        return -1;
    }
    return req->lib->generation == 1 ? cgpiod_v1_request_get_value(req, index) : cgpiod_v2_request_get_value(req, index);
}

int cgpiod_request_set_value(cgpiod_request *req, unsigned int index, bool value)
{
    if (index >= req->num_lines) {
        errno = EINVAL;
        return -1;
    }
    return req->lib->generation == 1 ? cgpiod_v1_request_set_value(req, index, value)
                                     : cgpiod_v2_request_set_value(req, index, value);
}

int cgpiod_request_has_events(const cgpiod_request *req)
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

int cgpiod_request_read_edges(cgpiod_request *req, cgpiod_edge *out, size_t max)
{
    if (max == 0)
        return 0;
    return req->lib->generation == 1 ? cgpiod_v1_request_read_edges(req, out, max)
                                     : cgpiod_v2_request_read_edges(req, out, max);
}
