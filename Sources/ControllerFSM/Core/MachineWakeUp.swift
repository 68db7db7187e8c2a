/// What wakes the thread that runs a `SharedMachine`'s timers when another thread's send may
/// have moved them. That thread sleeps until `nextDeadline` (in `poll`, beside its inputs); a
/// send from elsewhere can start or restart a timer meanwhile, and the sleeper must then read
/// the deadline again. The core knows no descriptor or system call, so the platform brings the
/// wake-up (on Linux, `WakeUpDescriptor`: an eventfd), as it brings the lock.
public protocol MachineWakeUp: AnyObject, Sendable {
    /// Called by `SharedMachine` after each send it took (dispatched or queued), once the
    /// dispatch lock is let go and after a sequentially consistent fence: wakes the sleeper if
    /// one is asleep, or about to be. Called on every send, so it should cost next to nothing
    /// while nobody sleeps.
    func ring()
}
