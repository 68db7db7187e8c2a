import TurnstileTestSupport
import ControllerTestSupport
import Foundation
import Testing
import ControllerHost
import Turnstile

@Suite("Board files shipped in boards/")
struct BoardFilesInRepoTests {
    @Test func builtInDefaultIsBoardsSimToml() throws {
        let file = try String(contentsOfFile: repositoryPath("boards/sim.toml"), encoding: .utf8)
        #expect(BoardFile.defaultSimText == file,
                "the embedded board differs from boards/sim.toml: is Sources/Turnstile/Resources/sim.toml still a link to it?")
    }

    @Test func simBoardWiresEveryRole() throws {
        let board = try BoardFile.load(path: repositoryPath("boards/sim.toml"))
        #expect(board == BoardFile.defaultSim)
        #expect(board.backend == .sim)
        #expect(board.chip == .label("turnstile-sim"))
        #expect(Set(board.inputs.keys) == Set(InputRole.allCases.map { RoleName($0.rawValue) }))
        #expect(Set(board.outputs.keys) == Set(OutputRole.allCases.map { RoleName($0.rawValue) }))
        #expect(board.inputs.mapValues(\.line) == [
            .coin: .name("COIN"), .push: .name("PUSH"), .service: .name("SERVICE"), .emergency: .name("EMERGENCY"),
        ])
        #expect(board.outputs.mapValues(\.line) == [.lock: .offset(4), .alarm: .offset(5), .ready: .offset(6), .inhibit: .offset(7)])
        #expect(board.sim.bounceEdges == 4)
        #expect(board.sim.bounceWindow == .milliseconds(3))
    }

    /// The Raspberry Pi boards wire the same header pins (BCM GPIO numbers), each on its
    /// model's chip: by offset on the older models, by line name where the device tree names them.
    @Test(arguments: [
        ("boards/raspberry-pi-1-3.toml", "pinctrl-bcm2835", false),
        ("boards/raspberry-pi-4.toml", "pinctrl-bcm2711", true),
        ("boards/raspberry-pi-5.toml", "pinctrl-rp1", true),
    ])
    func raspberryPiBoardUsesTheHeaderLines(path: String, label: String, byName: Bool) throws {
        let board = try BoardFile.load(path: repositoryPath(path))
        #expect(board.backend == .libgpiod)
        #expect(board.chip == .label(label))
        func line(_ gpio: UInt32) -> LineSelector { byName ? .name("GPIO\(gpio)") : .offset(gpio) }
        #expect(board.inputs.mapValues(\.line) == [.coin: line(17), .push: line(27), .service: line(22), .emergency: line(23)])
        #expect(board.outputs.mapValues(\.line) == [.lock: line(5), .alarm: line(6), .ready: line(13), .inhibit: line(19)])
        for input in board.inputs.values {
            #expect(input.activeLow)
            #expect(input.bias == .pullUp)
        }
        #expect(board.settings.failMode == .secure)
    }

    @Test(arguments: ["boards/generic.toml", "boards/hil-gpio-sim.toml"])
    func everyOtherShippedBoardLoads(path: String) throws {
        #expect(try BoardFile.load(path: repositoryPath(path)).backend == .libgpiod)
    }

    @Test func missingFileNamesThePathAndTheSystemReason() {
        #expect {
            try BoardFile.load(path: "/nonexistent/board.toml")
        } throws: { error in
            (error as? BoardFileError)?.description == "/nonexistent/board.toml: cannot open: No such file or directory"
        }
    }
}
