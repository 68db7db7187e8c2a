import ControllerFSM
import Logging

/// A logger whose messages a test reads back; any thread may log (a `Guarded`, as `Journal`).
package final class CapturedLog: Sendable {
    private let messages = Guarded<[String]>([])

    package init() {}

    package var lines: [String] { messages.withLock { $0 } }

    package var logger: Logger {
        Logger(label: "test") { _ in Handler(log: self) }
    }

    struct Handler: LogHandler {
        let log: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            log.messages.withLock { $0.append(event.message.description) }
        }
    }
}
