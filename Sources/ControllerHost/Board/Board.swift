import ControllerFSM

/// A board file (`boards/*.toml`): which GPIO chip and lines an application uses, their
/// electrical settings, the application's settings section and the simulator's input model.
///
/// ## Format (the turnstile's words as the example)
///
/// ```toml
/// [board]
/// name = "sim"
/// backend = "sim"          # "sim" or "libgpiod"
/// chip = "gpio-sim"        # by label, name ("gpiochip0") or path ("/dev/gpiochip0")
/// consumer = "turnstiled"  # optional, default: the application's daemon name
///
/// [inputs.coin]            # the application's input roles
/// line = "GPIO17"          # a line name (string) or an offset (integer >= 0)
/// active_low = true        # default false
/// bias = "pull-up"         # "as-is" (default), "disabled", "pull-up", "pull-down"
/// debounce = "10ms"        # default "10ms"; "0ms" turns debouncing off
///
/// [outputs.lock]           # the application's output roles
/// line = 22
/// active_low = false       # default false
///
/// [turnstile]              # the application's settings section; optional, defaults apply
/// relock_timeout = "5s"
///
/// [sim]                    # optional; used when the board is simulated; defaults shown
/// coin_pulse = "50ms"      # <role>_pulse for each pulse input
/// bounce_edges = 4         # extra edges after each change of level
/// bounce_window = "3ms"    # within this time; shorter than every pulse
/// travel_time = "3s"       # and the keys of the application's plant, if it has one
/// ```
///
/// Durations are strings: a decimal number and a unit, `ns`, `us`, `ms` or `s` (`"0.5s"`,
/// `"250ms"`), read exactly and kept to whole nanoseconds. `active_low` is the only inversion: a
/// logical 1 is the active input and the asserted output, whatever the wiring.
///
/// The loader refuses rather than guesses: an unknown section or key (a typo would otherwise be
/// silently ignored), an unknown role, a missing required role, a value of the wrong type or out
/// of range, and two roles on the same line are all errors that name the key path. A chip is
/// best named by label: a Raspberry Pi 5's header is on `pinctrl-rp1`, which is `gpiochip4` on
/// early kernels and `gpiochip0` on later ones.
public struct Board<App: ControllerApplication>: Hashable, Sendable {
    public typealias Backend = BoardBackend

    /// A label for logs and the `--json` summary.
    public package(set) var name: String
    /// Whether the lines are simulated or real.
    public package(set) var backend: Backend
    /// The chip, by label, name (`gpiochip0`) or path (`/dev/gpiochip0`), as the file gave it.
    public package(set) var chip: GPIOChipSelector
    /// The consumer name the lines are requested under (`gpioinfo` shows it).
    package var consumer: String
    /// Every wired input, by role; every required role is present in a loaded board.
    public package(set) var inputs: RoleLines<InputLine>
    /// Every wired output, by role; every required role is present in a loaded board.
    public package(set) var outputs: RoleLines<OutputLine>
    /// The application's section (defaults where absent).
    public package(set) var settings: App.Settings
    /// How the simulator drives the inputs (`[sim]`, defaults where absent); read for every
    /// backend, since any board's wiring can be simulated.
    public var sim: SimSettings
}

/// The GPIO implementation a board runs on.
public enum BoardBackend: String, CaseIterable, Hashable, Sendable {
    /// The in-memory simulated chip.
    case sim
    /// A real chip through the kernel's character device and libgpiod.
    case libgpiod
}

/// The lines of a board's `[inputs]` or `[outputs]`, by role name, in the application's
/// declaration order.
public struct RoleLines<Line: Hashable & Sendable>: Hashable, Sendable {
    /// The role names, in declaration order.
    public let roles: [RoleName]
    /// The line of each role, by its index in `roles`; `nil` where the board does not wire it.
    package var lines: [Line?]

    package init(roles: [RoleName]) {
        self.roles = roles
        lines = Array(repeating: nil, count: roles.count)
    }

    package subscript(index: Int) -> Line? {
        get { lines[index] }
        set { lines[index] = newValue }
    }

    /// The line of `role`; `nil` where the board does not wire it.
    public package(set) subscript(role: RoleName) -> Line? {
        get { roles.firstIndex(of: role).flatMap { lines[$0] } }
        set { if let index = roles.firstIndex(of: role) { lines[index] = newValue } }
    }

    /// The wired roles, in declaration order.
    public var keys: [RoleName] { wired.map(\.role) }

    /// The wired lines, in declaration order.
    package var values: [Line] { lines.compactMap { $0 } }

    /// Each wired role's line through `transform`, by role.
    package func mapValues<T>(_ transform: (Line) -> T) -> [RoleName: T] {
        Dictionary(uniqueKeysWithValues: wired.map { ($0.role, transform($0.line)) })
    }

    /// The wired roles with their lines, in declaration order.
    public var wired: [(role: RoleName, line: Line)] {
        zip(roles, lines).compactMap { role, line in line.map { (role, $0) } }
    }
}

extension Board {
    /// The `[sim]` section: how the simulator drives the input lines.
    public struct SimSettings: Hashable, Sendable {
        /// How long one pulse holds each pulse input's line active (`<role>_pulse`), by input
        /// index in ``ControllerApplication/inputs``; `nil` for a level.
        public package(set) var pulses: [Duration?]
        /// Extra edges of contact bounce after each change of level (0: clean edges).
        public var bounceEdges: Int
        /// The time within which those extra edges fall.
        public var bounceWindow: Duration
        /// The application's plant's keys (``SimulatedPlant/settingKeys``), defaults where absent.
        public var plant: App.Plant.Settings

        /// The pulse width of the input role called `role`; `nil` for a level or an unknown role.
        public func pulse(_ role: RoleName) -> Duration? {
            App.inputIndex(named: role).flatMap { pulses[$0] }
        }

        package mutating func setPulse(_ role: RoleName, _ width: Duration) {
            if let index = App.inputIndex(named: role) { pulses[index] = width }
        }
    }
}
