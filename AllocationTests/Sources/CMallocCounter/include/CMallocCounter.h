// Test-only: counts heap allocations made by the calling thread while counting is on.
// The allocator entry points are defined in MallocCounter.c and forward to glibc's __libc_*.
#ifndef CMALLOCCOUNTER_H
#define CMALLOCCOUNTER_H

#include <stdint.h>

/// 1 when allocations are counted; 0 in a sanitizer build, where the sanitizer owns malloc.
int malloc_counter_available(void);
/// Starts counting this thread's allocations from zero.
void malloc_counter_start(void);
/// Stops counting and returns the number of allocations this thread made since start.
uint64_t malloc_counter_stop(void);

#endif
