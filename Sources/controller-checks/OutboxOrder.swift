import ArgumentParser
import ControllerChecks
import Foundation

extension ControllerChecksCommand {
    struct OutboxOrder: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "outbox-order",
            abstract: "Checks that a subscriber received events 1 to EXPECTED, each once, in order.",
            discussion: "FILE holds what mosquitto_sub printed: one event's JSON (with its sequence) a line. Exit 1 when not.")

        @Argument(help: "What the subscriber received.")
        var file: String
        @Option(help: "How many events were counted.")
        var expected: Int

        func run() throws {
            try reportingFailure { () throws(CheckFailure) in
                let text = try read(file)
                let (messages, events, inOrder) = OutboxLoad.received(text, expected: expected)
                print("  received \(messages) messages, \(events) events, in order from 1: \(inOrder)")
                guard inOrder else { throw CheckFailure("\(file): the events received are not 1 to \(expected), each once, in order") }
            }
        }
    }
}
