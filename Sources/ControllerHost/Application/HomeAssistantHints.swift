/// What an application tells Home Assistant beyond what its declaration already says: which
/// states are faults (a `problem` binary sensor), whether the machine is a cover (a gate, a
/// garage door, a barrier) opened by one of its commands, and what each level input senses (its
/// binary sensor's device class: `occupancy` for a vehicle loop, `safety` for a fire alarm).
/// Every entity a declaration implies (the state, the counters, the gauges, the commands, a
/// binary sensor per level or condition input) is announced without hints.
///
/// ```swift
/// static var homeAssistant: HomeAssistantHints<Self> {
///     HomeAssistantHints(faultStates: [.fault], cover: .init(deviceClass: "gate", open: .request, openStates: [.open], opening: [.opening], closing: [.closing]))
/// }
/// ```
public struct HomeAssistantHints<App: ControllerApplication>: Sendable {
    /// The machine as a cover: Home Assistant's `cover` platform.
    public struct Cover: Sendable {
        /// Home Assistant's device class (`gate`, `garage`, `door`, `shutter`, …).
        public let deviceClass: String
        /// The direct command that opens it (sent as the control protocol's command): one of
        /// the application's ``ControllerApplication/commands``, or no cover is announced (as
        /// for `close` and `stop` when given).
        public let open: App.Event
        /// The direct command that closes it, if there is one. Without one the cover has no
        /// Close control (its `payload_close` is null: Home Assistant would otherwise send
        /// `CLOSE`, which no node takes).
        public let close: App.Event?
        /// The direct command that stops it where it is, if there is one; without one, no Stop
        /// control (`payload_stop` null, for the same reason).
        public let stop: App.Event?
        /// The innermost states that read as open, opening and closing; every other as closed.
        public let openStates: [App.State]
        public let opening: [App.State]
        public let closing: [App.State]

        public init(
            deviceClass: String, open: App.Event, close: App.Event? = nil, stop: App.Event? = nil,
            openStates: [App.State], opening: [App.State] = [], closing: [App.State] = []
        ) {
            self.deviceClass = deviceClass
            self.open = open
            self.close = close
            self.stop = stop
            self.openStates = openStates
            self.opening = opening
            self.closing = closing
        }
    }

    /// The states in which something is wrong: a `problem` binary sensor is on in them.
    public let faultStates: [App.State]
    public let cover: Cover?
    /// Home Assistant's binary sensor device class of level and condition inputs, by role
    /// (`occupancy`, `safety`, `door`, …); an input not named here gets none.
    public let inputDeviceClasses: [RoleName: String]

    public init(faultStates: [App.State] = [], cover: Cover? = nil, inputDeviceClasses: [RoleName: String] = [:]) {
        self.faultStates = faultStates
        self.cover = cover
        self.inputDeviceClasses = inputDeviceClasses
    }
}
