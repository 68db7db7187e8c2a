import ControllerFSM
import ParkingBarrier
import Testing

/// docs/parking-barrier.md's table for the parking barrier, row by row, and its entry work, on the machine as
/// the host drives it (levels written before their edges).
@Suite("Parking barrier: the table, row by row")
struct BarrierTableTests {
    static func at(_ seconds: Double) -> MachineInstant { MachineInstant(nanoseconds: Int64(seconds * 1e9)) }

    /// A barrier in `state`, reached the way the arm would get there, at time 0.
    static func barrier(in state: BarrierState) -> BarrierDriver {
        var d = BarrierDriver()
        switch state {
        case .closed: break
        case .opening:
            d.send(.request)
            d.set(.downLimit, false)
        case .open:
            d = barrier(in: .opening)
            d.set(.upLimit, true)
        case .closing:
            d = barrier(in: .open)
            d.expireTimer()
            d.set(.upLimit, false)
        case .fault: d.send(.fault)
        case .emergency: d.send(.emergencyOn)
        case .operating, .inService: break  // superstates: never asked for (atomicStates)
        }
        #expect(d.state == state)
        return d
    }

    @Test("the table compiles; its only warnings are for two level edges no row answers, whose level the host keeps")
    func tableIsClean() {
        #expect(BarrierMachine.table.warnings.sorted() == [
            "event unblocked is answered by no state; it will always be ignored",
        ])
    }

    @Test("closed: both motors off, red; a request opens it (counted), motor_up on with the motor timeout")
    func closedRequest() {
        var d = Self.barrier(in: .closed)
        #expect(d.outputs == .init(motorUp: false, motorDown: false, green: false, red: true, alarm: false))
        #expect(!d.timerRunning)
        #expect(d.send(.request) == .transitioned)
        #expect(d.state == .opening && d.counters.requests == 1)
        #expect(d.outputs.motorUp && !d.outputs.motorDown && d.outputs.red)
        #expect(d.machine.nextDeadline == Self.at(6))
    }

    @Test("closed: the arm leaving its rest without a command is a fault")
    func closedDownLeft() {
        var d = Self.barrier(in: .closed)
        #expect(d.set(.downLimit, false) == .transitioned)
        #expect(d.state == .fault && d.counters.faults == 1)
        #expect(d.outputs == .init(motorUp: false, motorDown: false, green: false, red: true, alarm: true))
    }

    @Test("opening: the top reached opens it (green, hold_open); a request is counted and changes nothing")
    func openingRows() {
        var d = Self.barrier(in: .opening)
        #expect(d.send(.request, at: Self.at(1)) == .handledInternally)
        #expect(d.state == .opening && d.counters.requests == 2)
        #expect(d.machine.nextDeadline == Self.at(6), "a request must not restart the motor timeout")
        #expect(d.set(.upLimit, true, at: Self.at(3)) == .transitioned)
        #expect(d.state == .open && !d.outputs.motorUp && d.outputs.green && !d.outputs.red)
        #expect(d.machine.nextDeadline == Self.at(23))
    }

    @Test("opening, closing: the arm not at its end by the motor timeout is a fault")
    func motorTimeouts() {
        for state in [BarrierState.opening, .closing] {
            var d = Self.barrier(in: state)
            let faultsBefore = d.counters.faults
            d.advance(to: d.lastTime + .seconds(6) - .nanoseconds(1))
            #expect(d.state == state)
            d.advance(to: d.lastTime + .nanoseconds(1))
            #expect(d.state == .fault && d.counters.faults == faultsBefore + 1)
            #expect(!d.outputs.motorUp && !d.outputs.motorDown && d.outputs.alarm && !d.timerRunning)
        }
    }

    @Test("opening with the arm already up goes straight on to open")
    func openingWhenUp() {
        var d = BarrierDriver(armDown: false, armUp: true)
        #expect(d.send(.request) == .transitioned)
        #expect(d.state == .open && !d.outputs.motorUp && d.machine.nextDeadline == Self.at(20))
        #expect(d.counters.faults == 0 && d.ignored == 0)
    }

    @Test("open: a request is counted; a vehicle on the loop stops the timer, leaving it counts a passage and waits close_delay")
    func openVehicle() {
        var d = Self.barrier(in: .open)
        #expect(d.send(.request) == .handledInternally)
        #expect(d.counters.requests == 2)
        #expect(d.set(.loop, true, at: Self.at(5)) == .handledInternally)
        #expect(!d.timerRunning)
        d.advance(to: Self.at(60))
        #expect(d.state == .open, "a vehicle on the loop keeps it open")
        #expect(d.set(.loop, false, at: Self.at(61)) == .handledInternally)
        #expect(d.counters.passages == 1 && d.context.passed)
        #expect(d.machine.nextDeadline == Self.at(62))
        d.advance(to: Self.at(62))
        #expect(d.state == .closing && d.counters.expiredOpenings == 0)
        #expect(d.outputs.motorDown && d.outputs.red && d.machine.nextDeadline == Self.at(68))
    }

    @Test("open: at the timeout a broken beam waits close_delay again, until the lane is clear")
    func openTimeoutNotClear() {
        var d = Self.barrier(in: .open)
        d.set(.loop, true, at: Self.at(1))
        d.set(.loop, false, at: Self.at(2))
        d.set(.photocell, true, at: Self.at(2.5))
        d.advance(to: Self.at(3))
        #expect(d.state == .open && d.machine.nextDeadline == Self.at(4))
        d.advance(to: Self.at(10))
        #expect(d.state == .open, "the beam is still broken")
        d.set(.photocell, false, at: Self.at(10.5))
        d.advance(to: Self.at(11))
        #expect(d.state == .closing && d.counters.expiredOpenings == 0 && d.counters.passages == 1)
    }

    @Test("open: hold_open expiring with the lane clear and nobody through is an expired opening")
    func openExpires() {
        var d = Self.barrier(in: .open)
        d.advance(to: Self.at(20) - .nanoseconds(1))
        #expect(d.state == .open)
        d.advance(to: Self.at(20))
        #expect(d.state == .closing && d.counters.expiredOpenings == 1 && d.counters.passages == 0)
    }

    @Test("open: a vehicle on the loop when hold_open ends keeps it open (timer restarted)")
    func openTimeoutWithVehicleFromBefore() {
        // The vehicle was on the loop before the arm was up: the hold_open timer runs.
        var d = BarrierDriver()
        d.set(.loop, true)
        d.send(.request)
        d.set(.downLimit, false)
        d.set(.upLimit, true, at: Self.at(3))
        #expect(d.state == .open && d.timerRunning)
        d.advance(to: Self.at(23))
        #expect(d.state == .open && d.machine.nextDeadline == Self.at(24))
    }

    @Test("closing: the rest reached closes it, both motors off")
    func closingDownReached() {
        var d = Self.barrier(in: .closing)
        #expect(d.set(.downLimit, true) == .transitioned)
        #expect(d.state == .closed && !d.outputs.motorDown && !d.timerRunning)
    }

    @Test("closing: a broken beam or a vehicle on the loop reverses it (counted); a request reopens it (not a reversal)")
    func closingReversals() {
        for (level, event) in [(BarrierDriver.Level.photocell, BarrierEvent.blocked), (.loop, .vehicleIn)] {
            var d = Self.barrier(in: .closing)
            #expect(d.set(level, true) == .transitioned, "\(event.name)")
            #expect(d.state == .opening && d.counters.reversals == 1)
            #expect(d.outputs.motorUp && !d.outputs.motorDown)
        }
        var d = Self.barrier(in: .closing)
        #expect(d.send(.request) == .transitioned)
        #expect(d.state == .opening && d.counters.reversals == 0 && d.counters.requests == 2)
    }

    @Test("closing with the arm already down goes straight on to closed")
    func closingWhenDown() {
        var d = Self.barrier(in: .open)
        d.set(.downLimit, true)  // seen at its rest since the arm last moved: believed
        let expired = d.expireTimer()
        #expect(expired)
        #expect(d.state == .closed && !d.outputs.motorDown && !d.timerRunning)
    }

    @Test("a fault from closed, opening, open or closing stops the motors and sounds the alarm")
    func faultRows() {
        for state in [BarrierState.closed, .opening, .open, .closing] {
            var d = Self.barrier(in: state)
            let faults = d.counters.faults
            #expect(d.send(.fault) == .transitioned)
            #expect(d.state == .fault && d.counters.faults == faults + 1 && !d.timerRunning)
            #expect(d.outputs == .init(motorUp: false, motorDown: false, green: false, red: true, alarm: true))
        }
    }

    @Test("fault: a repair lifts the arm (counted); requests are refused; another fault is ignored")
    func faultState() {
        var d = Self.barrier(in: .fault)
        #expect(d.send(.request) == .handledInternally)
        #expect(d.counters.refusedRequests == 1 && d.counters.requests == 0)
        #expect(d.send(.fault) == .ignored)
        #expect(d.ignored == 1)
        #expect(d.send(.repair) == .transitioned)
        #expect(d.state == .opening && d.counters.repairs == 1 && !d.outputs.alarm && d.outputs.motorUp)
    }

    @Test("emergencyOn from any other state lifts the arm; the state's timer becomes the motor timeout")
    func emergencyOn() {
        for state in [BarrierState.closed, .opening, .open, .closing, .fault] {
            var d = Self.barrier(in: state)
            let start = d.lastTime
            #expect(d.send(.emergencyOn) == .transitioned)
            #expect(d.state == .emergency && d.context.faultBeforeEmergency == (state == .fault))
            #expect(d.outputs.motorUp == (state != .open) && !d.outputs.motorDown && !d.outputs.alarm)
            #expect(d.machine.nextDeadline == (state == .open ? nil : start + .seconds(6)))
            #expect(d.send(.emergencyOn) == .ignored)
        }
    }

    @Test("emergency: the top reached stops motor_up and the timer; requests are refused")
    func emergencyTop() {
        var d = Self.barrier(in: .emergency)
        #expect(d.send(.request) == .handledInternally)
        #expect(d.counters.refusedRequests == 1)
        d.set(.downLimit, false)
        #expect(d.set(.upLimit, true, at: Self.at(3)) == .handledInternally)
        #expect(d.state == .emergency && !d.outputs.motorUp && !d.timerRunning)
        #expect(d.send(.emergencyOff) == .transitioned)
        #expect(d.state == .open && d.outputs.green && d.machine.nextDeadline == Self.at(23))
    }

    @Test("emergency: the arm not up by the motor timeout stops motor_up, is a fault, and the end of the alarm leaves it at fault")
    func emergencyTimeout() {
        var d = Self.barrier(in: .emergency)
        d.advance(to: Self.at(6))
        #expect(d.state == .emergency && !d.outputs.motorUp && !d.timerRunning)
        #expect(d.counters.faults == 1 && d.context.faultBeforeEmergency)
        #expect(d.send(.emergencyOff) == .transitioned)
        #expect(d.state == .fault && d.outputs.alarm)
    }

    @Test("emergencyOff after an emergency that interrupted a fault goes back to fault, otherwise to opening, which goes on to open with the arm up")
    func emergencyOff() {
        for (state, back) in [(BarrierState.fault, BarrierState.fault), (.closed, .open), (.closing, .open)] {
            var d = Self.barrier(in: state)
            d.send(.emergencyOn)
            d.set(.downLimit, false)
            d.set(.upLimit, true)
            #expect(d.send(.emergencyOff) == .transitioned)
            #expect(d.state == back)
        }
    }

    @Test("every level edge is handled in every state, never counted as ignored; pulses the state does not answer are")
    func levelsAreNeverIgnored() {
        for state in BarrierMachine.table.atomicStates {
            var d = Self.barrier(in: state)
            for level in BarrierDriver.Level.allCases {
                let before = d.context[keyPath: level.keyPath]
                d.set(level, !before)
                #expect(d.context[keyPath: level.keyPath] == !before)
                d.set(level, before)
            }
            #expect(d.ignored == 0, "\(state.name)")
        }
        var d = Self.barrier(in: .closed)
        #expect(d.send(.repair) == .ignored)
        #expect(d.send(.emergencyOff) == .ignored)
        #expect(d.ignored == 2 && d.state == .closed)
    }

    @Test("new settings change the next timer, not the running one")
    func retiming() {
        var d = Self.barrier(in: .open)
        var settings = BarrierSettings()
        settings.closeDelay = .seconds(3)
        d.machine.context.apply(settings)
        #expect(d.machine.nextDeadline == Self.at(20))
        d.set(.loop, true, at: Self.at(1))
        d.set(.loop, false, at: Self.at(2))
        #expect(d.machine.nextDeadline == Self.at(5))
    }

    // A state whose entry work assumes the arm up is never entered on a path
    // that has not checked the up limit's current level.

    @Test("emergencyOff while the arm is still rising goes to opening: motor_up on, green off, until the top is reached")
    func emergencyOffWhileRising() {
        for state in [BarrierState.closed, .closing, .opening] {
            var d = Self.barrier(in: state)
            d.send(.emergencyOn)
            d.set(.downLimit, false)
            #expect(!d.context.upLimit)
            #expect(d.state == .emergency && d.context.rising && d.outputs.motorUp)
            let ended = d.send(.emergencyOff)
            #expect(ended == .transitioned)
            #expect(d.state == .opening && d.outputs.motorUp && !d.outputs.green, "from \(state.name)")
            d.set(.upLimit, true)
            #expect(d.state == .open && d.outputs.green && !d.outputs.motorUp)
        }
    }

    @Test("open: the arm leaving its top lifts it again, green off until it is back; a passage seen is kept")
    func openArmSags() {
        var d = Self.barrier(in: .open)
        d.set(.loop, true)
        d.set(.loop, false)
        #expect(d.context.passed && d.counters.passages == 1)
        d.set(.upLimit, false)
        #expect(d.state == .opening && d.outputs.motorUp && !d.outputs.green)
        d.set(.upLimit, true)
        #expect(d.state == .open && d.outputs.green && d.context.passed)
        // Back with the passage seen: it closes after close_delay, not hold_open.
        #expect(d.machine.nextDeadline == Self.at(1))
    }

    /// `closing` the moment hold_open ended (at 20 s): motor_down on, the up limit not yet seen
    /// to leave.
    static func closingJustStarted() -> BarrierDriver {
        var d = barrier(in: .open)
        _ = d.expireTimer()
        return d
    }

    @Test("a request just after closing started, before the up limit reports leaving, waits limit_settle with the motors off")
    func requestWithinTheLimitDebounce() {
        // The switch reports the arm leaving within limit_settle: lifted, not believed up.
        var d = Self.closingJustStarted()
        #expect(d.outputs.motorDown && d.context.upLimit && d.context.upStale)
        d.send(.request)
        #expect(d.state == .opening && !d.outputs.motorUp && !d.outputs.motorDown && !d.outputs.green && d.context.confirming)
        d.set(.upLimit, false, at: Self.at(20.01))
        #expect(d.state == .opening && d.outputs.motorUp && !d.outputs.green)
        #expect(d.machine.nextDeadline == Self.at(26.01))
        d.set(.upLimit, true, at: Self.at(20.5))
        #expect(d.state == .open && d.outputs.green)

        // The arm had not left: the level holds for limit_settle and is believed.
        var e = Self.closingJustStarted()
        e.send(.request)
        #expect(e.machine.nextDeadline == Self.at(20.25))
        let expired = e.expireTimer()
        #expect(expired)
        #expect(e.state == .open && e.outputs.green && !e.context.upStale && e.counters.faults == 0)
    }

    @Test("emergency entered just after closing started confirms the top before it believes the arm up")
    func emergencyWithinTheLimitDebounce() {
        var d = Self.closingJustStarted()
        d.send(.emergencyOn)
        #expect(d.state == .emergency && !d.outputs.motorUp && d.context.confirming)
        d.set(.upLimit, false, at: Self.at(20.01))
        #expect(d.context.rising && d.outputs.motorUp)
        d.set(.upLimit, true, at: Self.at(20.5))
        #expect(!d.context.rising && !d.outputs.motorUp && !d.timerRunning)
        // Sagging during the emergency lifts it again.
        d.set(.upLimit, false, at: Self.at(21.0))
        #expect(d.context.rising && d.outputs.motorUp)
    }
}
