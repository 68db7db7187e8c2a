/// A GPIO chip: the port both the simulator and the libgpiod backend implement.
///
/// Requests come back as concrete associated types, so code generic over a chip calls
/// reads and writes directly, never through an existential box, on the event path.
public protocol GPIOChip {
    associatedtype Inputs: GPIOInputRequest
    associatedtype Outputs: GPIOOutputRequest

    var info: GPIOChipInfo { get }

    /// The offset of the line called `name` (e.g. `GPIO17`).
    /// - Throws: ``GPIOError/lineNotFound(chip:name:available:program:)`` when no line has that name.
    func offset(ofLineNamed name: String) throws(GPIOError) -> GPIOLineOffset

    /// What the chip says about the line at `offset`: its name, who holds it, its direction.
    /// - Throws: ``GPIOError/offsetOutOfRange(chip:offset:lineCount:)``,
    ///   ``GPIOError/chipGone(chip:path:)``.
    func lineInfo(at offset: GPIOLineOffset) throws(GPIOError) -> GPIOLineInfo

    /// Takes `lines` as inputs, all or none, with edge detection on both edges.
    /// - Parameters:
    ///   - lines: the lines to take, each with its bias, polarity and debounce.
    ///   - consumer: who holds the lines, as `gpioinfo` and busy errors will show it.
    /// - Throws: ``GPIOError/lineBusy(chip:line:consumer:)`` when a line is held elsewhere,
    ///   ``GPIOError/offsetOutOfRange(chip:offset:lineCount:)``,
    ///   ``GPIOError/invalidRequest(chip:line:reason:)`` for an empty list or a line listed
    ///   twice, ``GPIOError/chipGone(chip:path:)``.
    func requestInputs(_ lines: [InputLineSettings], consumer: String) throws(GPIOError) -> Inputs

    /// Takes `lines` as outputs, all or none, each driven at its initial value at once.
    /// - Throws: as ``requestInputs(_:consumer:)``.
    func requestOutputs(_ lines: [OutputLineSettings], consumer: String) throws(GPIOError) -> Outputs
}

/// Input lines held by one consumer. Lines are addressed by their index in the request.
public protocol GPIOInputRequest {
    /// The requested lines' offsets, in request order.
    var offsets: [GPIOLineOffset] { get }

    /// Whether edges arrive already debounced by the backend (the kernel's debounce). When
    /// `false`, raw edges arrive and the caller filters them with ``EdgeDebouncer``.
    var edgesAreDebounced: Bool { get }

    /// The line's current logical level: `true` = active (low, for an active-low line).
    func readValue(at index: Int) throws(GPIOError) -> Bool

    /// Moves pending edge events, oldest first, into `buffer` and returns how many it wrote;
    /// 0 when none are pending. Never blocks and never allocates: the caller owns the storage.
    func readEdgeEvents(into buffer: UnsafeMutableBufferPointer<EdgeEvent>) throws(GPIOError) -> Int

    /// Whether ``readEdgeEvents(into:)`` would return events now. `false` also when the request
    /// can no longer deliver any (released, chip gone); the next read says why.
    var hasPendingEdgeEvents: Bool { get }

    /// A file descriptor that polls readable when edge events are pending, for an event loop
    /// to wait on; `nil` when the backend has none (the simulator, driven by virtual time).
    var pollDescriptor: Int32? { get }

    /// Gives the lines back. Later calls on the request throw
    /// ``GPIOError/requestReleased(chip:consumer:)``; releasing twice is harmless.
    func release()
}

/// Output lines held by one consumer. Lines are addressed by their index in the request.
public protocol GPIOOutputRequest {
    /// The requested lines' offsets, in request order.
    var offsets: [GPIOLineOffset] { get }

    /// Drives the line to a logical value: `true` = asserted (low, for an active-low line).
    func write(_ value: Bool, at index: Int) throws(GPIOError)

    /// Gives the lines back; they keep their last level. Releasing twice is harmless.
    func release()
}
