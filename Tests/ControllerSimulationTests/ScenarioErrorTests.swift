import TurnstileTestSupport
import Testing
import ControllerHost
import Turnstile
import ControllerSimulation

@Suite("Scenarios: refusals name the file, the line and the reason")
struct ScenarioErrorTests {
    private func expectRefusal(_ text: String, _ expected: String, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            let scenario = try parseScenario(text)
            Issue.record("accepted: \(scenario.steps)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.description == expected, sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: [
        ("0 coin\n1 coins",
         "s.txt: line 2: unknown action \"coins\"; did you mean \"coin\"? known actions: coin, push, push hold SECONDS, repair, emergency on|off, fault, event NAME, set TIMING SECONDS, expect state|counter|credit|output, end"),
        ("0 dance",
         "s.txt: line 1: unknown action \"dance\"; known actions: coin, push, push hold SECONDS, repair, emergency on|off, fault, event NAME, set TIMING SECONDS, expect state|counter|credit|output, end"),
        ("3.0",
         "s.txt: line 1: missing action after time 3.0; known actions: coin, push, push hold SECONDS, repair, emergency on|off, fault, event NAME, set TIMING SECONDS, expect state|counter|credit|output, end"),
    ])
    func unknownOrMissingAction(text: String, expected: String) {
        expectRefusal(text, expected)
    }

    @Test(arguments: [
        ("coin", #"s.txt: line 1: bad time "coin"; start the line with its time in seconds, e.g. "0.5 coin""#),
        ("1s coin", #"s.txt: line 1: bad time "1s"; times are plain seconds without a unit, e.g. 1.5"#),
        ("500ms coin", #"s.txt: line 1: bad time "500ms"; times are plain seconds without a unit, e.g. 1.5"#),
        ("-1 coin", #"s.txt: line 1: bad time "-1"; times count seconds from the start of the run, so they are 0 or more"#),
        ("1,5 coin", #"s.txt: line 1: bad time "1,5"; each line starts with a time in seconds, like 0, 1.5 or 30"#),
        (".5 coin", #"s.txt: line 1: bad time ".5"; each line starts with a time in seconds, like 0, 1.5 or 30"#),
        ("5. coin", #"s.txt: line 1: bad time "5."; each line starts with a time in seconds, like 0, 1.5 or 30"#),
        ("1e3 coin", #"s.txt: line 1: bad time "1e3"; each line starts with a time in seconds, like 0, 1.5 or 30"#),
        ("0.0000000001 coin", "s.txt: line 1: time 0.0000000001 is finer than a nanosecond; round it to 9 decimal places or fewer"),
        ("99999999999 coin", "s.txt: line 1: time 99999999999 is too large; scenarios run for at most 10 years (315360000 s)"),
        ("9223372036 coin", "s.txt: line 1: time 9223372036 is too large; scenarios run for at most 10 years (315360000 s)"),
        ("9223372036.854775807 coin", "s.txt: line 1: time 9223372036.854775807 is too large; scenarios run for at most 10 years (315360000 s)"),
        ("9223372036.854775807 end", "s.txt: line 1: time 9223372036.854775807 is too large; scenarios run for at most 10 years (315360000 s)"),
        ("315360000.000000001 end", "s.txt: line 1: time 315360000.000000001 is too large; scenarios run for at most 10 years (315360000 s)"),
    ])
    func badTime(text: String, expected: String) {
        expectRefusal(text, expected)
    }

    @Test func timeGoingBackwardsNamesBothLines() {
        expectRefusal(
            "0 coin\n# a comment\n1 push\n\n2 coin\n5.0 push\n3.0 expect state locked\n",
            "s.txt: line 7: time 3.0 is earlier than 5.0 on line 6; times must not decrease")
    }

    @Test(arguments: [
        ("0 coin\n1 end\n2 push", #"s.txt: line 3: "push" comes after end on line 2; end must be the last action"#),
        ("0 end\n0 end", #"s.txt: line 2: "end" comes after end on line 1; end must be the last action"#),
        ("5 end\n# a comment is fine\n\n1 expect credit 0", #"s.txt: line 4: "expect credit 0" comes after end on line 1; end must be the last action"#),
    ])
    func nothingAfterEnd(text: String, expected: String) {
        expectRefusal(text, expected)
    }

    @Test(arguments: [
        ("0 coin 2", #"s.txt: line 1: unexpected "2" after "coin"; write "coin", one action a line"#),
        ("0 repair now", #"s.txt: line 1: unexpected "now" after "repair"; write "repair", one action a line"#),
        ("0 fault x", #"s.txt: line 1: unexpected "x" after "fault"; write "fault", one action a line"#),
        ("0 end now", #"s.txt: line 1: unexpected "now" after "end"; write "end", one action a line"#),
        ("0 push 2", #"s.txt: line 1: unexpected "2" after "push"; write "push" or "push hold SECONDS""#),
        ("0 push hold", #"s.txt: line 1: "push hold" is missing SECONDS; write "push hold SECONDS""#),
        ("0 push hold 3 4", #"s.txt: line 1: unexpected "4" after "push hold"; write "push hold SECONDS", one action a line"#),
        ("0 emergency", #"s.txt: line 1: "emergency" is missing on|off; write "emergency on|off""#),
        ("0 emergency on off", #"s.txt: line 1: unexpected "off" after "emergency"; write "emergency on|off", one action a line"#),
        ("0 expect", #"s.txt: line 1: "expect" needs something to check; write expect state NAME, expect counter NAME VALUE, expect credit N or expect output NAME 0|1"#),
        ("0 expect state", #"s.txt: line 1: "expect state" is missing NAME; write "expect state NAME""#),
        ("0 expect state locked now", #"s.txt: line 1: unexpected "now" after "expect state"; write "expect state NAME", one action a line"#),
        ("0 expect counter coins", #"s.txt: line 1: "expect counter" is missing VALUE; write "expect counter NAME VALUE""#),
        ("0 expect counter", #"s.txt: line 1: "expect counter" is missing NAME VALUE; write "expect counter NAME VALUE""#),
        ("0 expect credit", #"s.txt: line 1: "expect credit" is missing N; write "expect credit N""#),
        ("0 expect credit 1 2", #"s.txt: line 1: unexpected "2" after "expect credit"; write "expect credit N", one action a line"#),
        ("0 expect output lock", #"s.txt: line 1: "expect output" is missing 0|1; write "expect output NAME 0|1""#),
        ("0 expect output lock 1 0", #"s.txt: line 1: unexpected "0" after "expect output"; write "expect output NAME 0|1", one action a line"#),
    ])
    func missingOrExtraArguments(text: String, expected: String) {
        expectRefusal(text, expected)
    }

    @Test(arguments: [
        ("0 expect state lockd",
         #"s.txt: line 1: unknown state "lockd"; did you mean "locked"? known states: broken, emergency, locked, outOfOrder, unlocked"#),
        ("0 expect state outoforder",
         #"s.txt: line 1: unknown state "outoforder"; did you mean "outOfOrder"? known states: broken, emergency, locked, outOfOrder, unlocked"#),
        ("0 expect state open",
         "s.txt: line 1: unknown state \"open\"; known states: broken, emergency, locked, outOfOrder, unlocked"),
        ("0 expect counter passage 1",
         #"s.txt: line 1: unknown counter "passage"; did you mean "passages"? known counters: coins, coinsOutOfService, expiredCredits, faults, forcedPushes, freePassages, ignored, passages, repairs"#),
        ("0 expect counter credit 1",
         "s.txt: line 1: unknown counter \"credit\"; known counters: coins, coinsOutOfService, expiredCredits, faults, forcedPushes, freePassages, ignored, passages, repairs"),
        ("0 expect output buzzer 1",
         "s.txt: line 1: unknown output \"buzzer\"; known outputs: alarm, inhibit, lock, ready"),
        ("0 expect status locked",
         #"s.txt: line 1: unknown expectation "expect status"; did you mean "state"? write expect state NAME, expect counter NAME VALUE, expect credit N or expect output NAME 0|1"#),
    ])
    func unknownNamesInExpect(text: String, expected: String) {
        expectRefusal(text, expected)
    }

    @Test(arguments: [
        ("0 emergency maybe", #"s.txt: line 1: "maybe" is not on or off; write "emergency on" or "emergency off""#),
        ("0 expect counter coins -1", #"s.txt: line 1: "-1" is not a count; counts are whole numbers, 0 or more"#),
        ("0 expect counter coins 1.0", #"s.txt: line 1: "1.0" is not a count; counts are whole numbers, 0 or more"#),
        ("0 expect counter coins +1", #"s.txt: line 1: "+1" is not a count; counts are whole numbers, 0 or more"#),
        ("0 expect counter coins 99999999999999999999", "s.txt: line 1: count 99999999999999999999 is too large; counts go up to 9223372036854775807"),
        ("0 push hold 9223372036", "s.txt: line 1: duration 9223372036 is too large; scenarios run for at most 10 years (315360000 s)"),
        ("0 expect credit one", #"s.txt: line 1: "one" is not a count; counts are whole numbers, 0 or more"#),
        ("0 expect output lock on", #"s.txt: line 1: output value "on" is not 0 or 1; values are logical: 1 is on (lock 1 = locked), 0 is off"#),
        ("0 expect output lock 2", #"s.txt: line 1: output value "2" is not 0 or 1; values are logical: 1 is on (lock 1 = locked), 0 is off"#),
        ("0 push hold 5s", #"s.txt: line 1: bad duration "5s" for the hold; write seconds without a unit, like 35 or 0.5"#),
        ("0 push hold 0", "s.txt: line 1: a push hold must last longer than 0 seconds; write \"push\" for an ordinary passage"),
    ])
    func badValues(text: String, expected: String) {
        expectRefusal(text, expected)
    }

    @Test func vocabularyIsWhatTheCallerPassesIn() throws {
        let vocabulary = ScenarioVocabulary<TurnstileApplication>(states: ["idle"], counters: [], outputs: [])
        #expect(try Scenario<TurnstileApplication>.parse("0 expect state idle", file: "v.txt", vocabulary: vocabulary).steps.count == 1)
        let error = try #require(throws: ScenarioError.self) {
            try Scenario<TurnstileApplication>.parse("0 expect counter coins 1", file: "v.txt", vocabulary: vocabulary)
        }
        #expect(error.description == "v.txt: line 1: unknown counter \"coins\"; known counters: (none)")
        #expect(error.file == "v.txt")
        #expect(error.line == 1)
        #expect(error.reason == "unknown counter \"coins\"")
        #expect(error.hint == "known counters: (none)")
    }

    @Test("a recording that says what no replay can reproduce is refused, naming its line and time")
    func unreplayableIsRefused() throws {
        let text = "0 coin\n1.5 unreplayable the lock write failed (the controller raised fault)\n2 coin\n"
        let scenario = try Scenario<TurnstileApplication>.parse(text, file: "rec.txt", vocabulary: TurnstileSimulation.vocabulary(for: .defaultSim))
        #expect(throws: ScenarioError.self) { try TurnstileSimulation.check(scenario, against: .defaultSim) }
        do {
            try TurnstileSimulation.check(scenario, against: .defaultSim)
        } catch {
            #expect(error.description.contains("rec.txt: line 2: at 1.5 s the recorded run met what a replay cannot reproduce: the lock write failed"), "\(error)")
        }
    }
}
