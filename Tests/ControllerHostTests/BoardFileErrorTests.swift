import TurnstileTestSupport
import Testing
import ControllerHost
import Turnstile

/// `minimalBoard` with one piece of text swapped, for cases that break a required part.
private func board(replacing old: String, with new: String) -> String {
    precondition(minimalBoard.contains(old), "test setup: \(old) is not in minimalBoard")
    return minimalBoard.replacingOccurrences(of: old, with: new)
}

private extension String {
    func replacingOccurrences(of old: String, with new: String) -> String {
        split(separator: old, omittingEmptySubsequences: false).joined(separator: new)
    }
}

private func expectRefusal(_ text: String, _ expected: String, sourceLocation: SourceLocation = #_sourceLocation) {
    do {
        let board = try BoardFile.parse(text, file: "x.toml")
        Issue.record("accepted: \(board)", sourceLocation: sourceLocation)
    } catch {
        #expect(error.description == expected, sourceLocation: sourceLocation)
    }
}

@Suite("Board files: refusals name the file and the place")
struct BoardFileErrorTests {
    @Test(arguments: [
        ("a string without quotes", minimalBoard + "[inputs.service]\nline = 3\nbias = pull-up\n",
         #"x.toml: line 14, column 8: error while parsing value: could not determine value type; text values need double quotes, e.g. bias = "pull-up""#),
        ("a section twice", minimalBoard + "[inputs.coin]\nline = 9\n",
         "x.toml: line 12, column 1: error while parsing table header: cannot redefine existing table 'inputs.coin'; each section and key may appear only once"),
        ("an unclosed header", "[board\nname = \"x\"\n",
         #"x.toml: line 1, column 7: error while parsing table header: expected ']', saw '\n'; see the format described at the top of boards/sim.toml"#),
    ])
    func syntaxErrorsGiveLineAndColumn(_ label: String, text: String, expected: String) {
        expectRefusal(text, expected)
    }

    @Test(arguments: [
        ("unknown section", minimalBoard + "[turnstyle]\njam_timeout = \"30s\"\n",
         #"x.toml: turnstyle: unknown section "turnstyle"; did you mean "turnstile"? known sections: board, inputs, outputs, turnstile, sim"#),
        ("unknown input role", minimalBoard + "[inputs.coins]\nline = 7\n",
         #"x.toml: inputs.coins: unknown input role "coins"; did you mean "coin"? known input roles: coin, push, service, emergency"#),
        ("unknown output role", minimalBoard + "[outputs.buzzer]\nline = 7\n",
         "x.toml: outputs.buzzer: unknown output role \"buzzer\"; known output roles: lock, alarm, ready, inhibit"),
        ("unknown key in an input", board(replacing: "line = 0", with: "line = 0\nactivelow = true"),
         #"x.toml: inputs.coin.activelow: unknown key "activelow"; did you mean "active_low"? known keys: line, active_low, bias, debounce"#),
        ("input-only key on an output", board(replacing: "line = 2", with: "line = 2\nbias = \"pull-up\""),
         "x.toml: outputs.lock.bias: unknown key \"bias\"; known keys: line, active_low"),
        ("unknown key in [board]", board(replacing: "chip = ", with: "label = \"x\"\nchip = "),
         "x.toml: board.label: unknown key \"label\"; known keys: name, backend, chip, consumer"),
        ("unknown key in [sim]", minimalBoard + "[sim]\nbounces = 4\n",
         #"x.toml: sim.bounces: unknown key "bounces"; known keys: coin_pulse, push_pulse, service_pulse, bounce_edges, bounce_window"#),
        ("unknown key in [turnstile]", minimalBoard + "[turnstile]\nrelock = \"5s\"\n",
         "x.toml: turnstile.relock: unknown key \"relock\"; known keys: relock_timeout, repair_period, jam_timeout, alarm_pulse, fail_mode"),
    ])
    func unknownNamesAreRefused(_ label: String, text: String, expected: String) {
        expectRefusal(text, expected)
    }

    @Test(arguments: [
        ("no [board]", board(replacing: "[board]\nname = \"bench\"\nbackend = \"libgpiod\"\nchip = \"gpiochip0\"\n", with: ""),
         "x.toml: board: missing section; add [board] with name, backend and chip"),
        ("no name", board(replacing: "name = \"bench\"\n", with: ""), #"x.toml: board.name: missing; add name = "sim""#),
        ("no backend", board(replacing: "backend = \"libgpiod\"\n", with: ""), #"x.toml: board.backend: missing; add backend = "libgpiod""#),
        ("no chip", board(replacing: "chip = \"gpiochip0\"\n", with: ""),
         #"x.toml: board.chip: missing; add chip = "pinctrl-bcm2835" (a label, a name like "gpiochip0" or a path)"#),
        ("no coin", board(replacing: "[inputs.coin]\nline = 0\n", with: ""),
         #"x.toml: inputs.coin: missing section; every board wires coin and push: add [inputs.coin] with line = "GPIO17""#),
        ("no push", board(replacing: "[inputs.push]\nline = 1\n", with: ""),
         #"x.toml: inputs.push: missing section; every board wires coin and push: add [inputs.push] with line = "GPIO17""#),
        ("no lock", board(replacing: "[outputs.lock]\nline = 2\n", with: ""),
         "x.toml: outputs.lock: missing section; every board wires lock: add [outputs.lock] with line = 22"),
        ("no line", board(replacing: "[inputs.push]\nline = 1\n", with: "[inputs.push]\nactive_low = true\n"),
         #"x.toml: inputs.push.line: missing; add line = "GPIO17": write a line name in quotes (line = "GPIO17") or an offset (line = 17)"#),
    ])
    func missingRequiredPartsAreNamed(_ label: String, text: String, expected: String) {
        expectRefusal(text, expected)
    }

    @Test(arguments: [
        ("bias misspelt", board(replacing: "line = 0", with: "line = 0\nbias = \"pullup\""),
         #"x.toml: inputs.coin.bias: "pullup" is not one of "as-is", "disabled", "pull-up", "pull-down"; did you mean "pull-up"?"#),
        ("unknown backend", board(replacing: "\"libgpiod\"", with: "\"sysfs\""),
         #"x.toml: board.backend: "sysfs" is not one of "sim", "libgpiod""#),
        ("unknown fail mode", minimalBoard + "[turnstile]\nfail_mode = \"open\"\n",
         #"x.toml: turnstile.fail_mode: "open" is not one of "secure", "safe""#),
        ("choice as a boolean", minimalBoard + "[turnstile]\nfail_mode = true\n",
         #"x.toml: turnstile.fail_mode: expected a string, got bool true; write one of "secure", "safe", in quotes"#),
        ("bool as a string", board(replacing: "line = 0", with: "line = 0\nactive_low = \"yes\""),
         #"x.toml: inputs.coin.active_low: expected true or false, got string "yes"; booleans are unquoted"#),
        ("name as a number", board(replacing: "name = \"bench\"", with: "name = 5"),
         #"x.toml: board.name: expected a string, got integer 5; for example name = "sim""#),
        ("empty chip", board(replacing: "chip = \"gpiochip0\"", with: "chip = \"\""),
         #"x.toml: board.chip: must not be empty; for example chip = "pinctrl-bcm2835""#),
        ("inputs not a table", board(replacing: "[inputs.coin]\nline = 0\n[inputs.push]\nline = 1\n", with: "").replacingOccurrences(of: "[board]", with: "inputs = 5\n[board]"),
         "x.toml: inputs: expected a table, got integer 5; write it as a section: [inputs.coin]"),
        ("role not a table", board(replacing: "[inputs.push]\nline = 1\n", with: "[inputs]\npush = \"GPIO27\"\n"),
         #"x.toml: inputs.push: expected a table, got string "GPIO27"; write it as a section: [inputs.push]"#),
        ("negative offset", board(replacing: "line = 0", with: "line = -1"),
         "x.toml: inputs.coin.line: offset -1 is out of range; a GPIO chip's offsets go from 0 to 65535"),
        ("offset past 16 bits", board(replacing: "line = 0", with: "line = 65536"),
         "x.toml: inputs.coin.line: offset 65536 is out of range; a GPIO chip's offsets go from 0 to 65535"),
        ("offset past 32 bits", board(replacing: "line = 0", with: "line = 4294967295"),
         "x.toml: inputs.coin.line: offset 4294967295 is out of range; a GPIO chip's offsets go from 0 to 65535"),
        ("fractional line", board(replacing: "line = 0", with: "line = 1.5"),
         #"x.toml: inputs.coin.line: expected a line name or offset, got floating-point number 1.5; write a line name in quotes (line = "GPIO17") or an offset (line = 17)"#),
        ("empty line name", board(replacing: "line = 0", with: "line = \"\""),
         #"x.toml: inputs.coin.line: must not be empty; write a line name in quotes (line = "GPIO17") or an offset (line = 17)"#),
        ("bounce edges as a string", minimalBoard + "[sim]\nbounce_edges = \"4\"\n",
         #"x.toml: sim.bounce_edges: expected an integer, got string "4"; write a whole number from 0 to 100"#),
        ("negative bounce edges", minimalBoard + "[sim]\nbounce_edges = -1\n",
         "x.toml: sim.bounce_edges: -1 is out of range; write a whole number from 0 to 100"),
    ])
    func wrongValuesNameTheKeyPath(_ label: String, text: String, expected: String) {
        expectRefusal(text, expected)
    }

    @Test(arguments: [
        ("debounce as a number", "[inputs.push]\nline = 1\ndebounce = 10\n",
         #"x.toml: inputs.push.debounce: expected a duration string, got integer 10; write a number and a unit (ns, us, ms, s) in quotes, e.g. debounce = "10ms""#),
        ("no unit", "[turnstile]\nrelock_timeout = \"10\"\n",
         #"x.toml: turnstile.relock_timeout: "10" has no unit; write a number and a unit (ns, us, ms, s) in quotes, e.g. relock_timeout = "5s""#),
        ("unknown unit", "[turnstile]\nrelock_timeout = \"1min\"\n",
         #"x.toml: turnstile.relock_timeout: "1min" ends in "min", which is not a unit (ns, us, ms, s); write a number and a unit (ns, us, ms, s) in quotes, e.g. relock_timeout = "5s""#),
        ("space before the unit", "[turnstile]\nrelock_timeout = \"10 ms\"\n",
         #"x.toml: turnstile.relock_timeout: "10 ms" has a space before its unit: write them together; write a number and a unit (ns, us, ms, s) in quotes, e.g. relock_timeout = "5s""#),
        // Each gets its own reason, not "does not end in a unit".
        ("a digit separator", "[turnstile]\nrelock_timeout = \"5_000ms\"\n",
         #"x.toml: turnstile.relock_timeout: "5_000ms" has a digit separator (_): write the digits together; write a number and a unit (ns, us, ms, s) in quotes, e.g. relock_timeout = "5s""#),
        ("a plus sign", "[turnstile]\nrelock_timeout = \"+5s\"\n",
         #"x.toml: turnstile.relock_timeout: "+5s" starts with a sign: write the number alone (5s); write a number and a unit (ns, us, ms, s) in quotes, e.g. relock_timeout = "5s""#),
        ("an exponent", "[turnstile]\nrelock_timeout = \"1e400s\"\n",
         #"x.toml: turnstile.relock_timeout: "1e400s" has an exponent: write the digits out; write a number and a unit (ns, us, ms, s) in quotes, e.g. relock_timeout = "5s""#),
        ("hexadecimal", "[turnstile]\nrelock_timeout = \"0x5s\"\n",
         #"x.toml: turnstile.relock_timeout: "0x5s" is not a decimal number: write it in decimal digits; write a number and a unit (ns, us, ms, s) in quotes, e.g. relock_timeout = "5s""#),
        ("no number", "[turnstile]\nrelock_timeout = \"five s\"\n",
         #"x.toml: turnstile.relock_timeout: "five s" does not start with a number; write a number and a unit (ns, us, ms, s) in quotes, e.g. relock_timeout = "5s""#),
        ("no digits before the point", "[turnstile]\nrelock_timeout = \".5s\"\n",
         #"x.toml: turnstile.relock_timeout: ".5s" is not a duration; write a number and a unit (ns, us, ms, s) in quotes, e.g. relock_timeout = "5s""#),
        ("two points", "[turnstile]\nrelock_timeout = \"1.2.3s\"\n",
         #"x.toml: turnstile.relock_timeout: "1.2.3s" is not a duration; write a number and a unit (ns, us, ms, s) in quotes, e.g. relock_timeout = "5s""#),
        ("negative", "[turnstile]\njam_timeout = \"-5s\"\n",
         #"x.toml: turnstile.jam_timeout: "-5s" is negative; durations are lengths of time, 0 or more"#),
        ("zero where a length is needed", "[turnstile]\nrepair_period = \"0s\"\n",
         #"x.toml: turnstile.repair_period: must be longer than zero; for example repair_period = "5s""#),
        ("zero pulse", "[sim]\ncoin_pulse = \"0ms\"\n",
         #"x.toml: sim.coin_pulse: must be longer than zero; for example coin_pulse = "50ms""#),
        ("finer than a nanosecond", "[turnstile]\nalarm_pulse = \"1.5ns\"\n",
         #"x.toml: turnstile.alarm_pulse: "1.5ns" is finer than a nanosecond; round it to whole nanoseconds"#),
        ("too long", "[turnstile]\nalarm_pulse = \"99999999999s\"\n",
         #"x.toml: turnstile.alarm_pulse: "99999999999s" is too long; alarm_pulse is at most a day (86400 s)"#),
        ("past a day", "[turnstile]\nrelock_timeout = \"86400.000000001s\"\n",
         #"x.toml: turnstile.relock_timeout: "86400.000000001s" is too long; relock_timeout is at most a day (86400 s)"#),
        ("at the 64-bit limit", "[turnstile]\nrelock_timeout = \"9223372036s\"\n",
         #"x.toml: turnstile.relock_timeout: "9223372036s" is too long; relock_timeout is at most a day (86400 s)"#),
        ("a debounce of seconds", "[inputs.push]\nline = 1\ndebounce = \"2s\"\n",
         #"x.toml: inputs.push.debounce: "2s" is too long; debounce is at most 1 s"#),
        ("bounce window without length", "[sim]\nbounce_window = \"0ms\"\n",
         "x.toml: sim.bounce_window: must be longer than zero when bounce_edges is more than 0; set bounce_edges = 0 for clean edges"),
        ("bounce outlasting a pulse", "[sim]\nbounce_window = \"60ms\"\n",
         "x.toml: sim.bounce_window: must be shorter than sim.coin_pulse; contact bounce lasts a few milliseconds at each edge of a pulse"),
    ])
    func badDurationsAreRefused(_ label: String, section: String, expected: String) {
        let text = section.hasPrefix("[inputs.push]") ? board(replacing: "[inputs.push]\nline = 1\n", with: section) : minimalBoard + section
        expectRefusal(text, expected)
    }

    @Test(arguments: [
        ("two inputs on one offset", board(replacing: "line = 1", with: "line = 0"),
         "x.toml: inputs.push.line: line 0 is already used by inputs.coin; each role needs a line of its own"),
        ("an output on an input's offset", board(replacing: "line = 2", with: "line = 1"),
         "x.toml: outputs.lock.line: line 1 is already used by inputs.push; each role needs a line of its own"),
        ("two outputs on one name", minimalBoard + "[outputs.ready]\nline = \"LED\"\n[outputs.inhibit]\nline = \"LED\"\n",
         #"x.toml: outputs.inhibit.line: line "LED" is already used by outputs.ready; each role needs a line of its own"#),
    ])
    func twoRolesOnOneLineAreRefused(_ label: String, text: String, expected: String) {
        expectRefusal(text, expected)
    }

    @Test func errorCarriesItsPartsForCallers() throws {
        let error = try #require(throws: BoardFileError.self) {
            try BoardFile.parse(minimalBoard + "[inputs.coins]\nline = 7\n", file: "boards/x.toml")
        }
        #expect(error.file == "boards/x.toml")
        #expect(error.location == .keyPath("inputs.coins"))
        #expect(error.reason == "unknown input role \"coins\"")
        #expect(error.hint?.hasPrefix("did you mean \"coin\"?") == true)

        let syntax = try #require(throws: BoardFileError.self) { try BoardFile.parse("x = = 1", file: "y.toml") }
        #expect(syntax.location == .position(line: 1, column: 5))
    }
}
