import Foundation
import Testing
import Turnstile

/// The repository root, found from this file so the tests run from any working directory.
let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

func repositoryPath(_ relative: String) -> String { repositoryRoot.appendingPathComponent(relative).path }

@Suite("Board files shipped in boards/")
struct BoardFilesInRepoTests {
    @Test func builtInDefaultIsBoardsSimToml() throws {
        let file = try String(contentsOfFile: repositoryPath("boards/sim.toml"), encoding: .utf8)
        #expect(BoardFile.defaultSimText == file, "update BoardFile.defaultSimText to match boards/sim.toml")
    }

    @Test func simBoardWiresEveryRole() throws {
        let board = try BoardFile.load(path: repositoryPath("boards/sim.toml"))
        #expect(board == BoardFile.defaultSim)
        #expect(board.backend == .sim)
        #expect(board.chip == .label("turnstile-sim"))
        #expect(Set(board.inputs.keys) == Set(InputRole.allCases))
        #expect(Set(board.outputs.keys) == Set(OutputRole.allCases))
        #expect(board.inputs.mapValues(\.line) == [
            .coin: .name("COIN"), .push: .name("PUSH"), .service: .name("SERVICE"), .emergency: .name("EMERGENCY"),
        ])
        #expect(board.outputs.mapValues(\.line) == [.lock: .offset(4), .alarm: .offset(5), .ready: .offset(6), .inhibit: .offset(7)])
        #expect(board.sim.bounceEdges == 4)
        #expect(board.sim.bounceWindow == .milliseconds(3))
    }

    @Test func raspberryPiBoardUsesTheHeaderLines() throws {
        let board = try BoardFile.load(path: repositoryPath("boards/raspberry-pi.toml"))
        #expect(board.backend == .libgpiod)
        #expect(board.chip == .label("pinctrl-bcm2835"))
        #expect(board.inputs.mapValues(\.line) == [
            .coin: .name("GPIO17"), .push: .name("GPIO27"), .service: .name("GPIO22"), .emergency: .name("GPIO23"),
        ])
        #expect(board.outputs.mapValues(\.line) == [
            .lock: .name("GPIO5"), .alarm: .name("GPIO6"), .ready: .name("GPIO13"), .inhibit: .name("GPIO19"),
        ])
        for input in board.inputs.values {
            #expect(input.activeLow)
            #expect(input.bias == .pullUp)
        }
    }

    @Test func missingFileNamesThePathAndTheSystemReason() {
        #expect {
            try BoardFile.load(path: "/nonexistent/board.toml")
        } throws: { error in
            (error as? BoardFileError)?.description == "/nonexistent/board.toml: cannot open: No such file or directory"
        }
    }
}
