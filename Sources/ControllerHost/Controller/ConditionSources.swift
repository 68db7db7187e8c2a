/// A physical condition that an input line and commands can both assert: the fire alarm, which
/// the fire panel signals on the emergency line and an operator may declare with `ctl emergency
/// on` (later, a site-wide message).
///
/// The line is the truth about the world for as long as it is wired, so the condition is on
/// while *either* source asserts it: a command can add to what the line says (declare an alarm
/// the panel has not signalled), never undo it (end an alarm the panel still signals), and the
/// line going quiet does not end an alarm a command declared. Only a change of the combined
/// condition is an event for the machine, so the machine's `emergency` state follows exactly
/// one truth.
@usableFromInline
package struct ConditionSources: Sendable, Hashable {
    /// Who asserts or withdraws the condition.
    @usableFromInline
    package enum Source: Sendable {
        /// The input line's debounced level.
        case line
        /// A direct command (`ctl`, a scenario's `event`).
        case command
    }

    /// The line's level (false when the board does not wire it).
    @usableFromInline package private(set) var line = false
    /// Whether a command declared the condition and no command has withdrawn it since.
    @usableFromInline package private(set) var command = false

    @usableFromInline package init() {}

    /// On while either source asserts it.
    @inlinable package var isActive: Bool { line || command }

    /// Sets `source`'s level and returns the combined condition's new level if it changed,
    /// `nil` if it did not (the other source still holds it, or nothing changed).
    @inlinable package mutating func set(_ source: Source, active: Bool) -> Bool? {
        let before = isActive
        switch source {
        case .line: line = active
        case .command: command = active
        }
        return isActive == before ? nil : isActive
    }
}

/// What became of a direct command the controller was given.
public enum CommandOutcome: Sendable, Equatable {
    /// Dispatched to the machine (which may still ignore it, as its table says).
    case dispatched
    /// `emergency off` while the emergency line is active: the command's own declaration is
    /// withdrawn, but the alarm goes on until the line goes inactive.
    case heldByLine(RoleName)
    /// `emergency on|off` that changes nothing: the condition was already at that level.
    case alreadyInEffect
}
