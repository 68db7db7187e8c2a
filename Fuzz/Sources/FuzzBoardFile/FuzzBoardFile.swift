import CFuzzDriver
import ControllerHost
import ParkingBarrier
import Turnstile
import ControllerSimulation

/// Any bytes as a board file of each application — the turnstile's `[turnstile]` section, the
/// barrier's `[barrier]` section and its plant's `[sim]` keys (`travel_time`, `arm`): a board or
/// a `BoardFileError`, never a crash, a hang or unbounded memory. Valid boards are then checked
/// as `simulate` would check them.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBoardFile(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    read(text, as: TurnstileApplication.self)
    read(text, as: ParkingBarrier.self)
    return 0
}

func read<App: ControllerApplication>(_ text: String, as _: App.Type) {
    do {
        let board = try Board<App>.parse(text, file: "fuzz.toml")
        try Simulation<App>.checkTimings(of: board, file: "fuzz.toml")
        _ = Scenario<App>.demoText(for: board)
    } catch {
        _ = error.description
    }
}

/// The entry point SwiftPM gives an executable: hands the command line to libFuzzer.
@_cdecl("FuzzBoardFile_main")
public func fuzzBoardFileMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in fuzzBoardFile(data!, size) }
}
