/// docs/parking-barrier.md's barrier, written plainly: one switch over (state, event) beside the
/// table, the state's timer as a deadline, the outputs from the state. Nothing here comes from
/// the ParkingBarrier module or the runtime.
struct ReferenceBarrier {
    enum State: String, CaseIterable { case closed, opening, open, closing, fault, emergency }
    enum Event: CaseIterable {
        case request, vehicleIn, vehicleOut, blocked, unblocked, upReached, upLeft, downReached, downLeft
        case timeout, fault, repair, emergencyOn, emergencyOff
    }

    // The `[barrier]` defaults, in nanoseconds.
    static let motorTimeout: Int64 = 6_000_000_000
    static let closeDelay: Int64 = 1_000_000_000
    static let holdOpen: Int64 = 20_000_000_000
    static let limitSettle: Int64 = 250_000_000

    var state = State.closed
    var loop = false, photocell = false, up = false, down = true
    var passed = false
    var rememberedFault = false
    /// In emergency: motor_up on, the top not reached yet.
    var rising = false
    /// A limit's active level may be stale: the arm was driven away from it since it changed.
    var upStale = false, downStale = false
    /// Motors off, waiting to see whether a possibly stale limit level holds.
    var confirming = false
    /// The state's timer: when its timeout arrives.
    var timer: Int64?
    var counters: [String: Int] = [:]

    init(armUp: Bool) {
        up = armUp
        down = !armUp
    }

    var motorUp: Bool { (state == .opening && !confirming) || (state == .emergency && rising) }
    var motorDown: Bool { state == .closing && !confirming }
    var green: Bool { state == .open }
    var red: Bool { !green }
    var alarm: Bool { state == .fault }

    /// Time passes to `time`: a timeout due by then arrives at its deadline.
    mutating func advance(to time: Int64) {
        while let deadline = timer, deadline <= time {
            timer = nil
            take(.timeout, at: deadline)
        }
    }

    mutating func take(_ event: Event, at time: Int64) {
        // A level's edge keeps its level in every state, and is never ignored.
        var isLevel = true
        switch event {
        case .vehicleIn, .vehicleOut: loop = event == .vehicleIn
        case .blocked, .unblocked: photocell = event == .blocked
        case .upReached, .upLeft: up = event == .upReached; upStale = false
        case .downReached, .downLeft: down = event == .downReached; downStale = false
        default: isLevel = false
        }
        var next: State?
        switch (state, event) {
        case (.closed, .request), (.closing, .request): count("requests"); next = .opening
        case (.opening, .request), (.open, .request): count("requests")
        case (.fault, .request), (.emergency, .request): count("refusedRequests")
        case (.closed, .downLeft): count("faults"); next = .fault
        case (.opening, .upReached): next = .open
        case (.opening, .upLeft) where confirming: lift(at: time)
        case (.opening, .timeout) where confirming: upStale = false; next = .open
        case (.closing, .downLeft) where confirming: lower(at: time)
        case (.closing, .timeout) where confirming: downStale = false; next = .closed
        case (.open, .upLeft): next = .opening
        case (.emergency, .upLeft) where !rising: raise(at: time)
        case (.emergency, .timeout) where confirming: confirming = false; upStale = false
        case (.opening, .timeout), (.closing, .timeout): count("faults"); next = .fault
        case (.open, .vehicleIn): timer = nil
        case (.open, .vehicleOut): count("passages"); passed = true; timer = time + Self.closeDelay
        case (.open, .timeout) where loop || photocell: timer = time + Self.closeDelay
        case (.open, .timeout):
            if !passed { count("expiredOpenings") }
            next = .closing
        case (.closing, .downReached): next = .closed
        case (.closing, .blocked), (.closing, .vehicleIn): count("reversals"); next = .opening
        case (.closed, .fault), (.opening, .fault), (.open, .fault), (.closing, .fault): count("faults"); next = .fault
        case (.fault, .repair): count("repairs"); next = .opening
        case (.emergency, .upReached): rising = false; timer = nil
        case (.emergency, .timeout): rising = false; count("faults"); rememberedFault = true
        case (.emergency, .emergencyOff): next = rememberedFault ? .fault : .opening
        case (_, .emergencyOn) where state != .emergency: rememberedFault = state == .fault; next = .emergency
        default: if !isLevel { count("ignored") }
        }
        if let next { enter(next, at: time) }
    }

    /// Leaving a state ends its timer and its motor; entering one does its entry work.
    private mutating func enter(_ next: State, at time: Int64) {
        timer = nil
        rising = false
        confirming = false
        state = next
        switch next {
        case .opening:
            if up && !upStale { enter(.open, at: time) } else if up { confirm(at: time) } else { lift(at: time) }
        case .open: timer = time + (passed ? Self.closeDelay : Self.holdOpen)
        case .closing:
            passed = false
            if down && !downStale { enter(.closed, at: time) } else if down { confirm(at: time) } else { lower(at: time) }
        case .emergency:
            passed = false
            if up && !upStale {} else if up { confirm(at: time) } else { raise(at: time) }
        case .fault: passed = false
        case .closed: break
        }
    }

    private mutating func confirm(at time: Int64) { confirming = true; timer = time + Self.limitSettle }
    private mutating func lift(at time: Int64) { confirming = false; downStale = true; timer = time + Self.motorTimeout }
    private mutating func lower(at time: Int64) { confirming = false; upStale = true; timer = time + Self.motorTimeout }
    private mutating func raise(at time: Int64) { confirming = false; rising = true; downStale = true; timer = time + Self.motorTimeout }

    private mutating func count(_ name: String) { counters[name, default: 0] += 1 }
}
