import ControllerFSM

/// Fault injection: what a real chip does on a bad day.
extension SimChip {
    /// The next `count` input reads fail with `GPIOError/readFailed(chip:line:errno:)`
    /// (`EIO`). Both ``SimInputRequest/readValue(at:)`` and
    /// ``SimInputRequest/readEdgeEvents(into:)`` count as reads; a failed event read loses
    /// nothing, the events stay buffered.
    public func failNextReads(_ count: Int) {
        precondition(count >= 0, "failNextReads needs a count of at least 0 (got \(count))")
        state.withLock { $0.failingReads = count }
    }

    /// Writes to `line` fail with `GPIOError/writeFailed(chip:line:errno:)` (`EIO`) until
    /// called again with `false`; the line keeps its level.
    public func failWrites(to line: GPIOLineOffset, _ failing: Bool = true) {
        let index = checkedLine(line)
        state.withLock { $0.lines[index].writesFail = failing }
    }

    /// The chip disappears for good, as when a USB GPIO expander is unplugged: every later
    /// call on the chip and its requests throws `GPIOError/chipGone(chip:path:)`. The driver
    /// API still works (the devices are still there) but no events reach anyone.
    public func disappear() {
        state.withLock { $0.isGone = true }
    }

    /// The chip comes back after ``disappear()``, as a re-plugged expander does: a new device
    /// with every line free and undriven. Requests made before it went stay dead (they keep
    /// throwing `GPIOError/chipGone(chip:path:)`); a controller must request its lines again.
    /// Scheduled input activity goes on: what the devices did meanwhile shows in the levels.
    public func reappear() {
        state.withLock { state in
            state.isGone = false
            state.firstLiveRequestID = state.nextRequestID
            for slot in state.inputs.indices { state.inputs[slot] = nil }
            for line in state.lines.indices {
                state.lines[line].free()
                state.lines[line].outputValue = nil
            }
        }
    }

    /// Whether ``disappear()`` was called.
    public var isGone: Bool {
        state.withLock { $0.isGone }
    }
}
