extension BoardFile {
    /// The text of `boards/sim.toml`, built in so that `turnstiled simulate` runs without a board
    /// path and without knowing where the repository is. A test keeps it identical to the file.
    public static let defaultSimText = #"""
# The default board: the simulated turnstile that `turnstiled simulate` runs when no board is
# given. It wires every input and output role, so it is also the reference for the format.
#
# Board file format
# -----------------
# [board]         name, backend ("sim" or "libgpiod"), chip, and optionally consumer.
#                 chip is a label (best: it survives renumbering), a name ("gpiochip0") or a path
#                 ("/dev/gpiochip0"); consumer is the name the lines are requested under
#                 (default "turnstiled").
# [inputs.ROLE]   ROLE is coin or push (required), service or emergency (optional).
#                 line        a line name in quotes ("GPIO17") or an offset (17)
#                 active_low  true when the active level is the low voltage (default false)
#                 bias        "as-is" (default), "disabled", "pull-up" or "pull-down"
#                 debounce    how long the line must stay stable before an edge is taken
#                             (default "10ms"; "0ms" turns debouncing off)
# [outputs.ROLE]  ROLE is lock (required), alarm, ready or inhibit (optional).
#                 line, active_low as for inputs. Values are logical: lock 1 holds the arm,
#                 alarm 1 sounds, ready 1 lights, inhibit 1 makes the coin acceptor refuse coins.
# [turnstile]     optional; relock_timeout (default "5s"), repair_period ("5s"), jam_timeout
#                 ("30s": a push held longer is a fault), alarm_pulse ("500ms"), fail_mode
#                 ("secure": the lock is driven locked when the daemon stops; "safe": released).
# [sim]           optional; how the simulator drives the inputs: coin_pulse ("50ms"), push_pulse
#                 ("150ms"), service_pulse ("100ms"), bounce_edges (4 extra edges at each change
#                 of level; 0 for clean edges) within bounce_window ("3ms", shorter than a pulse).
#
# Durations are strings: a decimal number and a unit, ns, us, ms or s ("0.5s", "250ms").
# Unknown sections, keys and roles are errors, so a typo never passes silently.

[board]
name = "sim"
backend = "sim"
chip = "turnstile-sim"
consumer = "turnstiled"

# Inputs are wired like the Raspberry Pi board's (switches to ground, pulled up), so the
# simulator exercises the same active-low path as the hardware.
[inputs.coin]
line = "COIN"
active_low = true
bias = "pull-up"
debounce = "10ms"

[inputs.push]
line = "PUSH"
active_low = true
bias = "pull-up"
debounce = "10ms"

[inputs.service]
line = "SERVICE"
active_low = true
bias = "pull-up"
debounce = "10ms"

[inputs.emergency]
line = "EMERGENCY"
active_low = true
bias = "pull-up"
debounce = "10ms"

[outputs.lock]
line = 4
active_low = false

[outputs.alarm]
line = 5
active_low = false

[outputs.ready]
line = 6
active_low = false

[outputs.inhibit]
line = 7
active_low = false

[turnstile]
relock_timeout = "5s"
repair_period = "5s"
jam_timeout = "30s"
alarm_pulse = "500ms"
fail_mode = "secure"

[sim]
coin_pulse = "50ms"
push_pulse = "150ms"
service_pulse = "100ms"
bounce_edges = 4
bounce_window = "3ms"

"""#

    /// `defaultSimText`, parsed: the simulated board with every input and output role wired.
    public static let defaultSim: BoardFile = {
        do {
            return try parse(defaultSimText, file: defaultSimFile)
        } catch {
            // The text is a constant that the test suite parses; reaching here is a build defect.
            preconditionFailure("the built-in board is invalid: \(error)")
        }
    }()

    /// The name the built-in board goes by in messages.
    static let defaultSimFile = "boards/sim.toml (built in)"
}
