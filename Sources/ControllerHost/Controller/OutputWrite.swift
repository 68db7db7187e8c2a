import ControllerFSM

/// One output write, as the controller's output log (`init`'s `outputLog`) records it.
public struct OutputWrite: Hashable, Sendable {
    /// When the event that caused the write happened (an edge's kernel timestamp, a deadline).
    package var time: MachineInstant
    package var role: RoleName
    /// The logical level written.
    package var value: Bool
    /// When the write returned, if the controller was given a completion clock.
    package var completed: MachineInstant?

    @usableFromInline
    package init(time: MachineInstant, role: RoleName, value: Bool, completed: MachineInstant?) {
        self.time = time
        self.role = role
        self.value = value
        self.completed = completed
    }
}
