@testable import ControllerSCXML
import Testing

/// `<send delay=…>`: CSS2 times, exact to the nanosecond, fractions without a leading digit
/// too (`.5s`, which Qt SCXML 5.15 gets wrong).
@Suite("Literal delays")
struct DelayTests {
    @Test("read", arguments: [
        ("1s", 1_000_000_000), (".5s", 500_000_000), ("0.5s", 500_000_000), ("2.25s", 2_250_000_000),
        ("500ms", 500_000_000), ("1.5ms", 1_500_000), (" 3s ", 3_000_000_000), ("0s", 0), ("1.000000001s", 1_000_000_001),
    ] as [(String, Int64)])
    func read(_ text: String, _ nanoseconds: Int64) {
        #expect(SCXMLDelay.nanoseconds(text) == nanoseconds)
    }

    @Test("refused", arguments: ["1", "s", ".s", "1.s", "-1s", "1.5 s", "1e3s", "1.0000000001s", "2h", "9999999999s"])
    func refused(_ text: String) {
        #expect(SCXMLDelay.nanoseconds(text) == nil)
    }

    @Test("a delay longer than a day is refused by line")
    func tooLong() {
        let error = refusal(scxml("<state id=\"a\"><onentry>\n<send event=\"e\" delay=\"86401s\"/></onentry></state>"))
        guard case .unsupported(_, 3, "send", let reason)? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(reason.contains("longer than a day"))
    }
}
