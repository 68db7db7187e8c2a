/// Whether the tests were compiled with optimisation (`swift test -c release`).
let isOptimizedBuild: Bool = {
    #if DEBUG
    return false
    #else
    return true
    #endif
}()
