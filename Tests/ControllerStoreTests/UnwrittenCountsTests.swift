import ControllerFSM
import PropertyBased
import Testing
import ControllerHost
import Turnstile
@testable import ControllerStore
import ControllerTestSupport

/// The file of counts a stopped daemon could not write, for either application.
@Suite("UnwrittenCounts: the file")
struct UnwrittenCountsTests {
    /// `amounts` laid over `kinds`: the kinds with a positive amount, as the store keeps them.
    static func counts(_ kinds: [String], _ amounts: [Int]) -> [String: Int] {
        Dictionary(uniqueKeysWithValues: zip(kinds, amounts).filter { $0.1 > 0 })
    }

    @Test("whatever a stop keeps of either application, the next start reads back the same")
    func roundTrip() async {
        let input = zip(Gen.int(in: 1...1_000_000), Gen.int(in: -1_000_000...1_000_000), Gen.int(in: 0...4), Gen.int(in: 0...StoreLimits.maximumCount).array(of: 13))
        await propertyCheck(count: PropertyCases.count(200), input: input) { session, time, state, amounts in
            let turnstile = UnwrittenCounts<TurnstileApplication>(
                session: Int64(session), time: Int64(time) * 1_000_003, state: TurnstileState.allCases[state],
                gauges: ["credit": amounts[12]], counts: Self.counts(CountStore<TurnstileApplication>.kinds, amounts))
            let lamp = UnwrittenCounts<Lamp>(
                session: Int64(session), time: Int64(time), state: Lamp.State.allCases[state % 3], gauges: [:],
                counts: Self.counts(CountStore<Lamp>.kinds, amounts))
            do {
                #expect(try UnwrittenCounts<TurnstileApplication>.parse(turnstile.encoded, path: "t") == turnstile)
                #expect(try UnwrittenCounts<Lamp>.parse(lamp.encoded, path: "l") == lamp)
            } catch {
                Issue.record("\(error)")
            }
        }
    }

    @Test("a file for one application is refused by another, by line")
    func otherApplication() throws {
        let lamp = UnwrittenCounts<Lamp>(session: 1, time: 5, state: .blown, gauges: [:], counts: ["blowouts": 1])
        #expect(throws: StoreError.invalidUnwrittenFile(path: "f", line: 1, reason: "the first line is not \"turnstiled unwritten counts v1\"")) {
            try UnwrittenCounts<TurnstileApplication>.parse(lamp.encoded, path: "f")
        }
    }

    @Test("any text is read or refused with a line, never a trap")
    func anyText() async {
        let words = ["turnstiled unwritten counts v1", "lamp-keeper unwritten counts v1", "session", "time", "state", "credit", "coins",
                     "presses", "blowouts", "locked", "blown", "1", "-1", "9223372036854775807", "x", " ", "\n", ""]
        await propertyCheck(count: PropertyCases.count(300), input: Gen.int(in: 0...(words.count - 1)).array(of: 0...40)) { picks in
            // Mostly after the right header, so the lines below it are read.
            let body = picks.map { words[$0] }.joined(separator: picks.count % 3 == 0 ? " " : "\n")
            let header = picks.count % 5 == 0 ? "" : "\n"
            let parses = [
                { _ = try UnwrittenCounts<TurnstileApplication>.parse(UnwrittenCounts<TurnstileApplication>.header + header + body, path: "f") },
                { _ = try UnwrittenCounts<Lamp>.parse(UnwrittenCounts<Lamp>.header + header + body, path: "f") },
            ]
            for parse in parses {
                do {
                    try parse()
                } catch let error as StoreError {
                    guard case .invalidUnwrittenFile(_, let line, _) = error else {
                        Issue.record("refused with another error: \(error)")
                        continue
                    }
                    #expect(line >= 1)
                } catch {
                    Issue.record("\(error)")
                }
            }
        }
    }
}
