import CMallocCounter

/// Whether the tests were compiled with optimisation (`swift test -c release`).
let isOptimizedBuild: Bool = {
    #if DEBUG
    return false
    #else
    return true
    #endif
}()

/// Whether the allocation counter works in this build: not under a sanitizer, which owns malloc.
let canCountAllocations = malloc_counter_available() != 0
