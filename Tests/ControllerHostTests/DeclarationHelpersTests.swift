import ControllerFSM
import ControllerHost
import ControllerTestSupport
import Testing
import Turnstile

/// The one-line forms an application declares with: a timing relation from its terms, a
/// scenario word with a fixed set of arguments, a setting that is one of a few words.
@Suite("Declaration helpers: relations from terms, choice words, choice keys")
struct DeclarationHelpersTests {
    typealias Relation = TimingRelation<TurnstileApplication>
    typealias Term = TimingTerm<TurnstileApplication>

    /// The built-in board with `push` debounced `push` and `coin` debounced `coin`.
    static func board(push: String, coin: String) throws -> BoardFile {
        var text = BoardFile.defaultSimText
        for (role, debounce) in [("push", push), ("coin", coin)] {
            let header = "[inputs.\(role)]"
            let start = try #require(text.range(of: header))
            let line = try #require(text.range(of: "debounce = \"", range: start.upperBound..<text.endIndex))
            let end = try #require(text.range(of: "\"", range: line.upperBound..<text.endIndex))
            text.replaceSubrange(line.upperBound..<end.lowerBound, with: debounce)
        }
        return try BoardFile.parse(text, file: "b.toml")
    }

    @Test("atLeast: the relation reads as its terms, refuses one microsecond below their sum and takes the sum itself")
    func atLeast() throws {
        let relation = Relation.atLeast("turnstile.relock_timeout", \.settings.relockTimeout, .debounce(of: "push"),
                                        .constant(.milliseconds(250)), why: "a reason")
        #expect(relation.relation == "relock_timeout ≥ inputs.push.debounce + 0.25 s")
        let board = try Self.board(push: "30ms", coin: "5ms")
        #expect(relation.smallest(board) == .milliseconds(280))
        var edited = board
        edited.settings.relockTimeout = .milliseconds(280)
        try relation.check(edited, file: "b.toml")
        edited.settings.relockTimeout = .milliseconds(280) - .microseconds(1)
        #expect(throws: BoardFileError.self) { try relation.check(edited, file: "b.toml") }
    }

    @Test("above: the sum itself is refused; a nanosecond over it is taken")
    func above() throws {
        let relation = Relation.above("turnstile.jam_timeout", \.settings.jamTimeout, .constant(.seconds(2)), why: "a reason")
        #expect(relation.relation == "jam_timeout > 2 s")
        #expect(relation.smallest(BoardFile.defaultSim) == .seconds(2) + .nanoseconds(1))
    }

    @Test("debounce of several inputs is the longest of them, named as such; an input not wired counts zero")
    func longestDebounce() throws {
        let term = Term.debounce(of: "push", "coin", "nowhere")
        #expect(term.text == "the longest of inputs.push.debounce, inputs.coin.debounce and inputs.nowhere.debounce")
        #expect(term.value(try Self.board(push: "30ms", coin: "45ms")) == .milliseconds(45))
        #expect(term.value(try Self.board(push: "60ms", coin: "45ms")) == .milliseconds(60))
        #expect(Term.debounce(of: "nowhere").value(BoardFile.defaultSim) == .zero)
    }

    @Test("the simulated terms: a pulse's width, and the bounce window only while edges bounce")
    func simulatedTerms() throws {
        let board = BoardFile.defaultSim
        #expect(Term.simulatedPulse("push").value(board) == board.sim.pulse("push"))
        #expect(Term.simulatedPulse("push").text == "sim.push_pulse")
        #expect(board.sim.bounceEdges > 0 && Term.bounceWindow.value(board) == board.sim.bounceWindow)
        let still = try BoardFile.parse(BoardFile.defaultSimText.replacingOccurrences(of: "bounce_edges = 4", with: "bounce_edges = 0"),
                                        file: "still.toml")
        #expect(still.sim.bounceEdges == 0)
        #expect(Term.bounceWindow.value(still) == .zero)
    }

    @Test("a choice word reads each of its words, refuses any other naming them all, and writes its actions back")
    func choiceWord() throws {
        let word = ScenarioWord<TurnstileApplication>.choice("lamp", [
            ("on", .level("emergency", on: true)), ("off", .level("emergency", on: false)), ("dim", .pulse("coin", width: nil)),
        ])
        #expect(word.usages == ["lamp on|off|dim"])
        #expect(word.writes(.level("emergency", on: false)) == "lamp off")
        #expect(word.writes(.pulse("coin", width: nil)) == "lamp dim")
        #expect(word.writes(.pulse("push", width: nil)) == nil)
        // Through the turnstile's own choice word, as a scenario reads it.
        let vocabulary = ScenarioVocabulary(for: BoardFile.defaultSim)
        let steps = try Scenario<TurnstileApplication>.parse("0 emergency on\n1 emergency off\n", file: "s.txt", vocabulary: vocabulary).steps
        #expect(steps.map(\.action) == [.level("emergency", on: true), .level("emergency", on: false)])
        #expect(throws: ScenarioError.self) {
            try Scenario<TurnstileApplication>.parse("0 emergency\n", file: "s.txt", vocabulary: vocabulary)
        }
    }

    @Test("a choice key over any cases: each written as its word, read back from it, the words listed in order")
    func choiceKey() {
        struct Values { var up = false }
        let key = SectionKey<Values>.choice("arm", \.up, cases: [false, true], words: { $0 ? "up" : "down" })
        #expect(key.choices == ["down", "up"])
        var values = Values()
        #expect(key.text(in: values) == "down")
        if case .choice(let read, let write) = key.kind {
            write(&values, "up")
            #expect(values.up && read(values) == "up")
            write(&values, "sideways")
            #expect(values.up, "a word not among the choices changes nothing (the parser refuses it first)")
        } else {
            Issue.record("a choice key's kind is a choice")
        }
    }
}
