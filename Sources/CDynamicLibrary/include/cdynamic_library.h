/*
 * cdynamic_library.h — a C library opened at run time (dlopen) and its functions bound one by
 * one (dlsym), for the targets that need no headers or -dev package of the library to build
 * (CGpiod, CMosquitto, CSQLite, CLibXML2). Each says why with the same words: the message
 * dlopen leaves, or the file and the name it does not have.
 */
#ifndef CDYNAMIC_LIBRARY_H
#define CDYNAMIC_LIBRARY_H

#include <stdbool.h>
#include <stddef.h>

/* dlopen(file, flags); NULL with `reason` holding dlerror's message (or the file's name where
 * there is none). */
void *cdynamic_library_open(const char *file, int flags, char *reason, size_t reason_size);

/* Looks up `name` in `handle` into `*slot` (a function pointer's storage, `slot_size` bytes);
 * false with `reason` saying "FILE has no KIND NAME" (`kind`: "function", "symbol"). */
bool cdynamic_library_bind(void *handle, const char *file, const char *kind, const char *name, void *slot,
                           size_t slot_size, char *reason, size_t reason_size);

#endif
