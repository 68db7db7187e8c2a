import TurnstileTestSupport
import ControllerTestSupport
import Testing
import ControllerFSM
import ControllerHost
import Turnstile

@Suite("Board files: valid forms")
struct BoardFileTests {
    @Test func minimalBoardTakesEveryDefault() throws {
        let board = try BoardFile.parse(minimalBoard, file: "bench.toml")
        #expect(board.name == "bench")
        #expect(board.backend == .libgpiod)
        #expect(board.chip == .name("gpiochip0"))
        #expect(board.consumer == "turnstiled")
        #expect(Set(board.inputs.keys) == [.coin, .push])
        #expect(Set(board.outputs.keys) == [.lock])
        let coin = try #require(board.inputs[.coin])
        #expect(coin.line == .offset(0))
        #expect(coin.activeLow == false)
        #expect(coin.bias == .asIs)
        #expect(coin.debounce == .milliseconds(10))
        #expect(board.outputs[.lock]?.line == .offset(2))
        #expect(board.outputs[.lock]?.activeLow == false)

        #expect(board.settings.relockTimeout == .seconds(5))
        #expect(board.settings.repairPeriod == .seconds(5))
        #expect(board.settings.jamTimeout == .seconds(30))
        #expect(board.settings.alarmPulse == .milliseconds(500))
        #expect(board.settings.failMode == .secure)

        #expect(board.sim.pulse("coin") == .milliseconds(50))
        #expect(board.sim.pulse("push") == .milliseconds(150))
        #expect(board.sim.pulse("service") == .milliseconds(100))
        #expect(board.sim.bounceEdges == 4)
        #expect(board.sim.bounceWindow == .milliseconds(3))
    }

    @Test func everySettingIsRead() throws {
        let board = try BoardFile.parse("""
            [board]
            name = "full"
            backend = "sim"
            chip = "/dev/gpiochip3"
            consumer = "gate-7"

            [inputs.coin]
            line = "GPIO17"
            active_low = true
            bias = "pull-up"
            debounce = "5ms"
            [inputs.push]
            line = "GPIO27"
            bias = "pull-down"
            [inputs.service]
            line = 65535
            bias = "disabled"
            debounce = "0ms"
            [inputs.emergency]
            line = "GPIO23"
            bias = "as-is"

            [outputs.lock]
            line = "GPIO5"
            active_low = true
            [outputs.alarm]
            line = 6
            [outputs.ready]
            line = 13
            [outputs.inhibit]
            line = "GPIO19"

            [turnstile]
            relock_timeout = "2.5s"
            repair_period = "10s"
            jam_timeout = "45s"
            alarm_pulse = "250ms"
            fail_mode = "safe"

            [sim]
            coin_pulse = "40ms"
            push_pulse = "0.2s"
            service_pulse = "80ms"
            bounce_edges = 0
            bounce_window = "0ms"
            """, file: "full.toml")
        #expect(board.backend == .sim)
        #expect(board.chip == .path("/dev/gpiochip3"))
        #expect(board.consumer == "gate-7")
        let coin = try #require(board.inputs[.coin])
        #expect(coin.line == .name("GPIO17"))
        #expect(coin.activeLow == true)
        #expect(coin.bias == .pullUp)
        #expect(coin.debounce == .milliseconds(5))
        #expect(board.inputs[.push]?.bias == .pullDown)
        #expect(board.inputs[.service]?.line == .offset(65535))
        #expect(board.inputs[.service]?.bias == .disabled)
        #expect(board.inputs[.service]?.debounce == .zero)
        #expect(board.inputs[.emergency]?.bias == .asIs)
        #expect(board.outputs[.lock]?.line == .name("GPIO5"))
        #expect(board.outputs[.lock]?.activeLow == true)
        #expect(board.outputs[.alarm]?.line == .offset(6))
        #expect(board.outputs[.ready]?.line == .offset(13))
        #expect(board.outputs[.inhibit]?.line == .name("GPIO19"))
        #expect(board.settings.relockTimeout == .milliseconds(2500))
        #expect(board.settings.repairPeriod == .seconds(10))
        #expect(board.settings.jamTimeout == .seconds(45))
        #expect(board.settings.alarmPulse == .milliseconds(250))
        #expect(board.settings.failMode == .safe)
        #expect(board.sim.pulse("coin") == .milliseconds(40))
        #expect(board.sim.pulse("push") == .milliseconds(200))
        #expect(board.sim.pulse("service") == .milliseconds(80))
        #expect(board.sim.bounceEdges == 0)
        #expect(board.sim.bounceWindow == .zero)
    }

    @Test(arguments: [
        ("10ms", Duration.milliseconds(10)),
        ("0.5s", .milliseconds(500)),
        ("0.1s", .milliseconds(100)),
        ("2s", .seconds(2)),
        ("250ns", .nanoseconds(250)),
        ("1.5us", .nanoseconds(1500)),
        ("1.500ms", .microseconds(1500)),
        ("0.000000001s", .nanoseconds(1)),
        ("3600s", .seconds(3600)),
        ("0.25000000000000000000s", .milliseconds(250)),
    ])
    func durationsAreReadExactly(text: String, expected: Duration) throws {
        // Read through sim.coin_pulse with clean edges: the [turnstile] timings now have floors
        // (TimingRelation), which would refuse the short ones before they were read.
        let board = try BoardFile.parse(minimalBoard + "[sim]\nbounce_edges = 0\ncoin_pulse = \"\(text)\"\n", file: "d.toml")
        #expect(board.sim.pulse("coin") == expected)
    }

    @Test func dottedKeysAreTheSameAsSections() throws {
        let board = try BoardFile.parse("""
            board = { name = "inline", backend = "sim", chip = "c" }
            inputs.coin.line = 0
            inputs.push.line = 1
            outputs.lock = { line = 2, active_low = true }
            """, file: "inline.toml")
        #expect(board.outputs[.lock]?.activeLow == true)
    }

    @Test func rolesAndChoicesSpellTheirFileKeys() {
        #expect(TurnstileApplication.inputs.map(\.role.rawValue) == InputRole.allCases.map(\.rawValue))
        #expect(TurnstileApplication.outputs.map(\.role.rawValue) == OutputRole.allCases.map(\.rawValue))
        #expect(TurnstileApplication.inputs.filter(\.isRequired).map(\.role.rawValue) == ["coin", "push"])
        #expect(TurnstileApplication.outputs.filter(\.isRequired).map(\.role.rawValue) == ["lock"])
        #expect(LineBias.allCases.map(\.rawValue) == ["as-is", "disabled", "pull-up", "pull-down"])
        #expect(FailMode.allCases.map(\.rawValue) == ["secure", "safe"])
        #expect(BoardFile.Backend.allCases.map(\.rawValue) == ["sim", "libgpiod"])
        #expect(LineSelector.name("GPIO17").description == "\"GPIO17\"")
        #expect(LineSelector.offset(17).description == "17")
    }
}
