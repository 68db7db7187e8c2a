@_exported import CMallocCounter

// Test-only: what the allocation tests of several test targets share.

/// Whether the tests were compiled with optimisation (`swift test -c release`): allocation
/// counts mean something only then, since an unoptimised build boxes what the shipped one does not.
public let isOptimizedBuild: Bool = {
    #if DEBUG
    return false
    #else
    return true
    #endif
}()

/// Whether the allocation counter works in this build: not under a sanitizer, which owns malloc.
public let canCountAllocations = malloc_counter_available() != 0
