import CFuzzDriver
import ControllerHost
import Turnstile
import ControllerSimulation

/// Any bytes as a board file: a board or a `BoardFileError`, never a crash, a hang or unbounded
/// memory. Valid boards are then checked as `simulate` would check them.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBoardFile(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    do {
        let board = try BoardFile.parse(text, file: "fuzz.toml")
        try TurnstileSimulation.checkTimings(of: board, file: "fuzz.toml")
        _ = Scenario<TurnstileApplication>.demoText(for: board)
    } catch {
        _ = error.description
    }
    return 0
}

/// The entry point SwiftPM gives an executable: hands the command line to libFuzzer.
@_cdecl("FuzzBoardFile_main")
public func fuzzBoardFileMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in fuzzBoardFile(data!, size) }
}
