import ControllerFSM

/// The world outside the chip: devices acting on input lines at scheduled virtual times.
///
/// "Active" here is the device's state (a coin in the sensor, a pressed button); the line's
/// ``SimLine/activeLow`` wiring turns it into a wire level. Times may not lie before the last
/// ``advance(to:)``, which would rewrite what requests have already seen.
extension SimChip {
    /// A pulse on `line`: the device becomes active at `start` and inactive `width` later.
    ///
    /// Contact bounce adds `bounceEdges` extra edges after each of the two edges, within
    /// `bounceWindow` of it, at places drawn from the seeded generator; the line always settles
    /// at the pulse's level, so an odd `bounceEdges` is rounded up. The first window is cut to
    /// `width` so the press settles before the release; the second may run into a later pulse
    /// on the same line, which is the scheduler's business.
    public func schedulePulse(
        line: GPIOLineOffset, at start: MachineInstant, width: Duration, bounceEdges: Int = 0,
        bounceWindow: Duration = .zero
    ) {
        precondition(width > .zero, "a pulse needs a positive width (got \(width))")
        precondition(bounceEdges >= 0, "bounceEdges cannot be negative (got \(bounceEdges))")
        precondition(bounceWindow >= .zero, "bounceWindow cannot be negative (got \(bounceWindow))")
        let index = checkedLine(line)
        let begin = start.nanoseconds
        let end = (start + width).nanoseconds
        let window = bounceWindow.nanosecondCount
        let toggles = bounceEdges + bounceEdges % 2
        state.withLock { state in
            precondition(begin >= state.appliedThrough, "cannot schedule a pulse at \(start.seconds) s: the chip has advanced past it")
            state.insert(SimScheduledEdge(time: begin, line: index, active: true))
            state.insertBounce(line: index, after: begin, window: min(window, end - begin), toggles: toggles, settled: true)
            state.insert(SimScheduledEdge(time: end, line: index, active: false))
            state.insertBounce(line: index, after: end, window: window, toggles: toggles, settled: false)
        }
    }

    /// The device on `line` becomes active (or inactive) at `time` and stays so: a held button,
    /// an alarm contact, a limit switch. A switch's contact bounces as a pulse's does
    /// (`bounceEdges` extra edges within `bounceWindow`, settling at the new level); none by default.
    public func scheduleLevel(
        line: GPIOLineOffset, at time: MachineInstant, active: Bool, bounceEdges: Int = 0, bounceWindow: Duration = .zero
    ) {
        precondition(bounceEdges >= 0, "bounceEdges cannot be negative (got \(bounceEdges))")
        let index = checkedLine(line)
        let toggles = bounceEdges + bounceEdges % 2
        state.withLock { state in
            precondition(time.nanoseconds >= state.appliedThrough, "cannot schedule a level at \(time.seconds) s: the chip has advanced past it")
            state.insert(SimScheduledEdge(time: time.nanoseconds, line: index, active: active))
            state.insertBounce(line: index, after: time.nanoseconds, window: bounceWindow.nanosecondCount, toggles: toggles, settled: active)
        }
    }

    /// When the next scheduled raw edge happens; `nil` when none is scheduled.
    public var nextEventTime: MachineInstant? {
        state.withLock { state in state.schedule.last.map { MachineInstant(nanoseconds: $0.time) } }
    }

    /// How many raw edges are scheduled and have not happened yet.
    public var scheduledEdgeCount: Int {
        state.withLock { $0.schedule.count }
    }

    /// Makes every raw edge scheduled up to `time` happen: line levels change, and the
    /// requests holding the lines get the edges, stamped with their scheduled times, in their
    /// event buffers. Moves the clock forward to `time` if it is behind.
    ///
    /// Drive a simulation by advancing to the earliest of ``nextEventTime``, the debouncer's
    /// deadline and the program's own timers. One thread should own moving the clock: the
    /// check and the move are not one atomic step.
    public func advance(to time: MachineInstant) {
        if clock.now() < time { clock.set(to: time) }
        state.withLock { $0.apply(through: time.nanoseconds) }
    }
}
