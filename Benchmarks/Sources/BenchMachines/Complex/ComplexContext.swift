/// The complex machine's data: the counter internal rows add to and guards test.
public struct ComplexContext: Sendable {
    public var counter = 0
}

/// Everything a complex-machine implementation computes, compared at the end of a stream.
public struct ComplexSnapshot: Equatable, Sendable, CustomStringConvertible {
    public var state: ComplexState
    public var counter: Int
    public var ignored: Int

    public var description: String { "state=\(state) counter=\(counter) ignored=\(ignored)" }
}
