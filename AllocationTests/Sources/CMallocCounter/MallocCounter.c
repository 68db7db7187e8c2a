// Interposes the allocator for the test process. Only the counting thread's allocations are
// counted (thread-local), so Swift Testing's own threads do not disturb a measurement.
//
// Under a sanitizer the sanitizer's runtime owns malloc: interposing it again would crash the
// process as it starts. Then nothing is interposed and malloc_counter_available() says so.
#define _GNU_SOURCE
#include "CMallocCounter.h"
#include <errno.h>
#include <stddef.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define CMALLOCCOUNTER_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CMALLOCCOUNTER_SANITIZED 1
#endif

#ifdef CMALLOCCOUNTER_SANITIZED
int malloc_counter_available(void) { return 0; }
void malloc_counter_start(void) {}
uint64_t malloc_counter_stop(void) { return 0; }
#else
int malloc_counter_available(void) { return 1; }

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void *pointer);

static __thread int counting;
static __thread uint64_t allocations;

static inline void note_allocation(void) {
    if (counting) allocations++;
}

void malloc_counter_start(void) {
    allocations = 0;
    counting = 1;
}

uint64_t malloc_counter_stop(void) {
    counting = 0;
    return allocations;
}

void *malloc(size_t size) {
    note_allocation();
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    note_allocation();
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    note_allocation();
    return __libc_realloc(pointer, size);
}

void free(void *pointer) {
    __libc_free(pointer);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    note_allocation();
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL) return ENOMEM;
    *result = pointer;
    return 0;
}

void *aligned_alloc(size_t alignment, size_t size) {
    note_allocation();
    return __libc_memalign(alignment, size);
}

void *memalign(size_t alignment, size_t size) {
    note_allocation();
    return __libc_memalign(alignment, size);
}
#endif
