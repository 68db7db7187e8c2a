import Foundation

/// What the event loop's allocation check (scripts/check-loop-allocations.sh) drives a product
/// with: its package's `packaging/checks.json`, entry `"loop"`.
public struct LoopCheckSpec: Decodable, Sendable {
    /// The scenario the daemon runs (`--script`), relative to the package.
    public let script: String
    /// When the scenario's last step comes, in seconds: the check waits that long.
    public let lastStepSeconds: Double
    /// The input `ctl pulse` sends while the scenario runs.
    public let ctlPulse: String
    /// The counter those pulses add to.
    public let ctlPulsesCount: String
    /// The counts the run's summary must show, the pulses aside.
    public let expectedCounts: [String: Int]
    /// Changes to the product's `boards/sim.toml` for this check (see ``BoardEdits``).
    public let boardEdits: [String: String]

    /// The counts the summary must show after `pulses` pulses.
    public func expectedCounts(afterPulses pulses: Int) -> [String: Int] {
        expectedCounts.merging([ctlPulsesCount: pulses], uniquingKeysWith: +)
    }

    /// The settings as shell assignments (`board=… script_source=… ctl_pulse=…
    /// ctl_pulse_counter=… duration=…` and `expected_counts='coins=3 passages=2'`), each value
    /// quoted for `eval`.
    public func shellAssignments(package: ProductPackage, board: String, pulses: Int) -> String {
        let counts = expectedCounts(afterPulses: pulses).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        return [
            "board=\(Shell.quoted(board))",
            "script_source=\(Shell.quoted(package.path + "/" + script))",
            "ctl_pulse=\(Shell.quoted(ctlPulse))",
            "ctl_pulse_counter=\(Shell.quoted(ctlPulsesCount))",
            "duration=\(Shell.quoted(String(lastStepSeconds)))",
            "expected_counts=\(Shell.quoted(counts))",
        ].joined(separator: "\n")
    }
}
