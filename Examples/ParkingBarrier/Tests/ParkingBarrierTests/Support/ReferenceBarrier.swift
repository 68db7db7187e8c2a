/// DESIGN.md's parking barrier, written plainly: one switch over (state, event) beside the
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

    var state = State.closed
    var loop = false, photocell = false, up = false, down = true
    var passed = false
    var rememberedFault = false
    /// In emergency: motor_up on, the top not reached yet.
    var rising = false
    /// The state's timer: when its timeout arrives.
    var timer: Int64?
    var counters: [String: Int] = [:]

    init(armUp: Bool) {
        up = armUp
        down = !armUp
    }

    var motorUp: Bool { state == .opening || (state == .emergency && rising) }
    var motorDown: Bool { state == .closing }
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
        case .upReached, .upLeft: up = event == .upReached
        case .downReached, .downLeft: down = event == .downReached
        default: isLevel = false
        }
        var next: State?
        switch (state, event) {
        case (.closed, .request), (.closing, .request): count("requests"); next = .opening
        case (.opening, .request), (.open, .request): count("requests")
        case (.fault, .request), (.emergency, .request): count("refusedRequests")
        case (.closed, .downLeft): count("faults"); next = .fault
        case (.opening, .upReached): next = .open
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
        case (.emergency, .emergencyOff): next = rememberedFault ? .fault : .open
        case (_, .emergencyOn) where state != .emergency: rememberedFault = state == .fault; next = .emergency
        default: if !isLevel { count("ignored") }
        }
        if let next { enter(next, at: time) }
    }

    /// Leaving a state ends its timer and its motor; entering one does its entry work.
    private mutating func enter(_ next: State, at time: Int64) {
        timer = nil
        rising = false
        state = next
        switch next {
        case .opening: if up { enter(.open, at: time) } else { timer = time + Self.motorTimeout }
        case .open: passed = false; timer = time + Self.holdOpen
        case .closing: if down { enter(.closed, at: time) } else { timer = time + Self.motorTimeout }
        case .emergency:
            rising = !up
            if rising { timer = time + Self.motorTimeout }
        case .closed, .fault: break
        }
    }

    private mutating func count(_ name: String) { counters[name, default: 0] += 1 }
}
