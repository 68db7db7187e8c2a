import TurnstileTestSupport
import ControllerTestSupport
import Testing
@testable import ControllerHost
@testable import Turnstile
import ControllerSimulation

#if canImport(Glibc)
import Glibc
#endif

/// System calls the board and scenario loaders make, failed on purpose: the error names the
/// file and says what the system said. The failures are task-local (`FileSyscalls.faults.failing`), so
/// these run alongside the tests that read real files.
@Suite("Loader system call faults")
struct LoaderSyscallFaultTests {
    let directory: TemporaryDirectory
    let board: String
    let scenario: String

    init() throws {
        directory = try TemporaryDirectory()
        board = try directory.file("board.toml", BoardFile.defaultSimText)
        scenario = try directory.file("s.txt", "0 coin\n1 push\n")
    }

    @Test func aFailingReadNamesTheBoardFileAndTheReason() throws {
        let error = try #require(throws: BoardFileError.self) {
            try FileSyscalls.faults.failing([.read: EIO]) { try BoardFile.load(path: board) }
        }
        #expect(error.description == "\(board): cannot read: Input/output error")
        #expect(error.location == .file)
    }

    @Test func aRefusedOpenNamesTheBoardFileAndTheReason() throws {
        // The tests run as root, for whom a real file's permissions refuse nothing.
        let error = try #require(throws: BoardFileError.self) {
            try FileSyscalls.faults.failing([.open: EACCES]) { try BoardFile.load(path: board) }
        }
        #expect(error.description == "\(board): cannot open: Permission denied")
    }

    @Test func aFailingReadNamesTheScenarioFileAndTheReason() throws {
        let error = try #require(throws: ScenarioError.self) {
            try FileSyscalls.faults.failing([.read: EIO]) {
                try Scenario<TurnstileApplication>.load(path: scenario, vocabulary: turnstileVocabulary)
            }
        }
        #expect(error.description == "\(scenario): cannot read: Input/output error")
        #expect(error.line == nil)
    }

    @Test func theSameFilesLoadWithoutTheFault() throws {
        #expect(try BoardFile.load(path: board) == BoardFile.defaultSim)
        #expect(try Scenario<TurnstileApplication>.load(path: scenario, vocabulary: turnstileVocabulary).steps.count == 2)
    }
}
