/// The guard against benchmarking a machine that computes something else: every implementation
/// of a machine, run from a fresh start over the whole stream, must end exactly as the C switch
/// does (state, every counter, credit, outputs, timer).
public enum EquivalenceCheck {
    public struct Mismatch: Error, CustomStringConvertible {
        public let description: String
    }

    /// Throws when `implementation` of `machine` disagrees with the C switch or reports a problem.
    public static func verify(_ machine: MachineKind, _ implementation: Implementation) throws(Mismatch) {
        let reference = run(machine, .cSwitch)
        let candidate = makeRunner(machine, implementation)
        candidate.run(first: EventStreams.length)
        let result = candidate.result
        guard result == reference.result else {
            throw Mismatch(description: """
                \(machine.rawValue) \(implementation.rawValue) computes something else than the C switch on the same stream:
                  \(implementation.rawValue): \(result)
                  c-switch: \(reference.result)
                """)
        }
        let problems = candidate.problems
        guard problems.isEmpty else {
            throw Mismatch(description: "\(machine.rawValue) \(implementation.rawValue): \(problems.joined(separator: "; "))")
        }
    }

    /// Every implementation of every machine; returns how many were checked.
    @discardableResult
    public static func verifyAll() throws(Mismatch) -> Int {
        var checked = 0
        for machine in MachineKind.allCases {
            for implementation in machine.implementations where implementation != .cSwitch {
                try verify(machine, implementation)
                checked += 1
            }
        }
        return checked
    }

    private static func run(_ machine: MachineKind, _ implementation: Implementation) -> any StreamRunner {
        let runner = makeRunner(machine, implementation)
        runner.run(first: EventStreams.length)
        return runner
    }
}
