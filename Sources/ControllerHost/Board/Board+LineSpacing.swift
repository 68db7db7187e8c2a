extension Board {
    /// How long an input starting on `role`'s simulated line keeps that line from taking the
    /// next one: a pulse of `width` holds it for the width, the bounce of its release and the
    /// debounce period in which its end is seen; a level (`width` nil) for its debounce period.
    ///
    /// The one rule for every producer and reader of simulated inputs: `simulate` refuses a
    /// scenario that breaks it, the daemon's simulated board spaces `ctl pulse`s by it, and the
    /// flight recorder writes no two inputs on a line closer than it (so a recording of
    /// back-to-back pulses always replays).
    package func lineHold(_ role: RoleName, width: Duration?) -> Duration {
        let bounce = sim.bounceEdges > 0 && width != nil ? sim.bounceWindow : .zero
        return (width ?? .zero) + bounce + (inputs[role]?.debounce ?? .zero)
    }

    /// The width of the pulse the simulator makes on `role`'s line for one input (a coin, a
    /// passage, a repair request); nil for a level.
    package func simulatedPulseWidth(_ role: RoleName) -> Duration? {
        sim.pulse(role)
    }
}
