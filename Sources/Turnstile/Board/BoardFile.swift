import ControllerFSM

/// A board file (`boards/*.toml`): which GPIO chip and lines a turnstile uses, their electrical
/// settings, the machine's timings and the simulator's input model.
///
/// ## Format
///
/// ```toml
/// [board]
/// name = "sim"
/// backend = "sim"          # "sim" or "libgpiod"
/// chip = "gpio-sim"        # by label, name ("gpiochip0") or path ("/dev/gpiochip0")
/// consumer = "turnstiled"  # optional, default "turnstiled"
///
/// [inputs.coin]            # roles: coin, push (required); service, emergency (optional)
/// line = "GPIO17"          # a line name (string) or an offset (integer >= 0)
/// active_low = true        # default false
/// bias = "pull-up"         # "as-is" (default), "disabled", "pull-up", "pull-down"
/// debounce = "10ms"        # default "10ms"; "0ms" turns debouncing off
///
/// [outputs.lock]           # roles: lock (required); alarm, ready, inhibit (optional)
/// line = 22
/// active_low = false       # default false
///
/// [turnstile]              # optional; defaults shown
/// relock_timeout = "5s"
/// repair_period = "5s"
/// jam_timeout = "30s"
/// alarm_pulse = "500ms"
/// fail_mode = "secure"     # "secure" (lock driven locked on stop) or "safe" (released)
///
/// [sim]                    # optional; used when the board is simulated; defaults shown
/// coin_pulse = "50ms"
/// push_pulse = "150ms"
/// service_pulse = "100ms"
/// bounce_edges = 4         # extra edges after each change of level
/// bounce_window = "3ms"    # within this time; shorter than every pulse
/// ```
///
/// Durations are strings: a decimal number and a unit, `ns`, `us`, `ms` or `s` (`"0.5s"`,
/// `"250ms"`), read exactly and kept to whole nanoseconds. `active_low` is the only inversion: a
/// logical 1 is the active input and the asserted output, whatever the wiring.
///
/// The loader refuses rather than guesses: an unknown section or key (a typo would otherwise be
/// silently ignored), an unknown role, a missing `coin`, `push` or `lock`, a value of the wrong
/// type or out of range, and two roles on the same line are all errors that name the key path.
/// A chip is best named by label: a Raspberry Pi 5's header is on `pinctrl-rp1`, which is
/// `gpiochip4` on early kernels and `gpiochip0` on later ones.
public struct BoardFile: Hashable, Sendable {
    /// The GPIO implementation a board runs on.
    package enum Backend: String, CaseIterable, Hashable, Sendable {
        /// The in-memory simulated chip.
        case sim
        /// A real chip through the kernel's character device and libgpiod.
        case libgpiod
    }

    /// A label for logs and the `--json` summary.
    package var name: String
    /// Whether the lines are simulated or real.
    package var backend: Backend
    /// The chip, by label, name (`gpiochip0`) or path (`/dev/gpiochip0`), as the file gave it.
    package var chip: GPIOChipSelector
    /// The consumer name the lines are requested under (`gpioinfo` shows it).
    package var consumer: String
    /// Every wired input; `coin` and `push` are always present in a loaded board.
    package var inputs: [InputRole: InputLine]
    /// Every wired output; `lock` is always present in a loaded board.
    package var outputs: [OutputRole: OutputLine]
    /// The machine's timings and fail mode (`[turnstile]`, defaults where absent).
    package var turnstile: TurnstileSettings
    /// How the simulator drives the inputs (`[sim]`, defaults where absent); read for every
    /// backend, since any board's wiring can be simulated.
    public var sim: SimSettings
}
