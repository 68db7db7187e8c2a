/*
 * cdynamic_library.c — dlopen and dlsym with the reason a caller reports (cdynamic_library.h).
 */
#include "cdynamic_library.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

void *cdynamic_library_open(const char *file, int flags, char *reason, size_t reason_size)
{
    void *handle = dlopen(file, flags);
    if (!handle) {
        const char *why = dlerror();
        snprintf(reason, reason_size, "%s", why ? why : file);
    }
    return handle;
}

bool cdynamic_library_bind(void *handle, const char *file, const char *kind, const char *name, void *slot,
                           size_t slot_size, char *reason, size_t reason_size)
{
    dlerror();
    void *symbol = dlsym(handle, name);
    if (!symbol || slot_size != sizeof(symbol)) {
        snprintf(reason, reason_size, "%s has no %s %s", file, kind, name);
        return false;
    }
    /* POSIX guarantees a data pointer from dlsym converts to a function pointer; memcpy says
     * so without a cast ISO C leaves undefined. */
    memcpy(slot, &symbol, sizeof(symbol));
    return true;
}
