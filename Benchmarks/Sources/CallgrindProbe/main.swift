#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import BenchMachines

// Runs one implementation of one machine over the first N events of its stream, for counting
// instructions under `valgrind --tool=callgrind`:
//
//     CallgrindProbe MACHINE IMPLEMENTATION N
//
// The whole stream is generated whatever N is, so a run with N events and one with 0 differ only
// by the N dispatches: (Ir(N) - Ir(0)) / N is the cost of one event, start-up cancelled out.
//
//     CallgrindProbe check
//
// checks that every implementation ends as the C switch does on the whole stream, and prints
// what each machine's C switch ends with.

let usage = """
    usage: CallgrindProbe MACHINE IMPLEMENTATION EVENTS
           CallgrindProbe check
      MACHINE: \(MachineKind.allCases.map(\.rawValue).joined(separator: ", "))
      IMPLEMENTATION: \(MachineKind.allCases.map { "\($0.rawValue): \($0.implementations.map(\.rawValue).joined(separator: ", "))" }.joined(separator: "; "))
      EVENTS: 0...\(EventStreams.length)
    """

func fail(_ message: String) -> Never {
    var standardError = StandardError()
    print(message, to: &standardError)
    exit(2)
}

let arguments = CommandLine.arguments.dropFirst()
if arguments == ["check"] {
    do {
        let checked = try EquivalenceCheck.verifyAll()
        for machine in MachineKind.allCases {
            let reference = makeRunner(machine, .cSwitch)
            reference.run(first: EventStreams.length)
            print("\(machine.rawValue) after \(EventStreams.length) events: \(reference.result)")
        }
        print("all \(checked) implementations end as the C switch does")
    } catch {
        fail("error: \(error)")
    }
    exit(0)
}

guard arguments.count == 3,
      let machine = MachineKind(rawValue: arguments[arguments.startIndex]),
      let implementation = Implementation(rawValue: arguments[arguments.startIndex + 1]), machine.implementations.contains(implementation),
      let count = Int(arguments[arguments.startIndex + 2]), (0...EventStreams.length).contains(count)
else {
    fail(usage)
}

let runner = makeRunner(machine, implementation)
// The stream is generated whatever N is, so that it cancels out of Ir(N) - Ir(0).
switch machine {
case .turnstile, .nestedTurnstile: _ = EventStreams.turnstile.count
case .complex: _ = EventStreams.complex.count
}
runner.run(first: count)
// Printing the result keeps the work observable, so none of it is optimised away.
print(runner.result)
