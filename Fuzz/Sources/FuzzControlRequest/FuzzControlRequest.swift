import CFuzzDriver
import ControllerDaemon
import Turnstile

/// Any bytes as a request line to the turnstile's control socket: a request or a `ControlProtocolError`, never a
/// crash, a hang or unbounded memory. A request must survive `ctl`'s encoding unchanged, and
/// every answer (the error reply too) must be one line `ctl` reads back as the same reply.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzControlRequest(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let line = UnsafeBufferPointer(start: data, count: size)
    let reply: ControlReply
    do {
        let request = try ControlRequestLine<TurnstileApplication>(parsing: line)
        guard (try? ControlRequestLine<TurnstileApplication>(parsing: request.encoded().dropLast())) == request else {
            fatalError("\(request) does not survive encoding")
        }
        reply = .accepted("\(request.request)")
    } catch {
        reply = .failure(ControlFailure(error))
    }
    let encoded = ControlReplyLine(reply: reply).encoded(daemon: TurnstileApplication.daemonName)
    guard encoded.firstIndex(of: UInt8(ascii: "\n")) == encoded.count - 1,
          (try? ControlReplyLine(parsing: encoded.dropLast(), daemon: TurnstileApplication.daemonName))?.reply == reply else {
        fatalError("the reply \(reply) is not one line that reads back")
    }
    return 0
}

/// The entry point SwiftPM gives an executable: hands the command line to libFuzzer.
@_cdecl("FuzzControlRequest_main")
public func fuzzControlRequestMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in fuzzControlRequest(data!, size) }
}
