import ControllerFSM
import Testing
import ControllerHost
import Turnstile
@testable import ControllerStore

/// The names a declaration gives the store are checked before any database is touched.
@Suite("CountStore: the declaration's names")
struct StoreDeclarationTests {
    /// The lamp, declared with every mistake a store cannot take.
    enum ClashingLamp: ControllerApplication {
        typealias State = Lamp.State
        typealias Event = Lamp.Event
        typealias Context = Lamp.Context
        typealias Settings = Lamp.Settings

        static let name = "clashing"
        static var table: TransitionTable<State, Event, Context> { Lamp.table }
        static let settings = SettingsDeclaration<Self>(section: "clashing", defaults: Settings(), keys: [])
        static func makeContext(_: Settings) -> Context { Context() }
        static func apply(_: Settings, to _: inout Context) {}
        static let inputs: [InputDeclaration<Self>] = []
        static let outputs: [OutputDeclaration<Self>] = []
        static let counters: [CounterDeclaration<Self>] = [
            CounterDeclaration("presses") { $0.presses },
            CounterDeclaration("State") { $0.surges },
            CounterDeclaration("two words") { $0.surges },
        ]
        static let gauges: [GaugeDeclaration<Self>] = [
            GaugeDeclaration("level", voidedByRestart: "presses") { $0.presses },
            GaugeDeclaration("Level") { $0.surges },
        ]
        static let stateCounts: [StateCount<Self>] = [.entering(.blown, counts: "presses")]
        static let durableInvariants = [DurableInvariant("balance", "presses", equals: ["nowhere"])]
    }

    @Test("the turnstile's and the lamp's declarations can be stored")
    func validDeclarations() {
        #expect(StoreDeclaration<TurnstileApplication>().problems == [])
        #expect(StoreDeclaration<Lamp>().problems == [])
    }

    @Test("every clash is named: a kind twice, a store's own name, a space, a gauge voided into a counter, gauges differing in case, an unknown name in a balance")
    func clashesAreNamed() {
        let problems = StoreDeclaration<ClashingLamp>().problems
        let expected = [
            "the counter \"State\" is called like the store's own state: rename it",
            "the counter \"two words\" is empty or has a space or line break: the unwritten-counts file writes it as one word",
            "\"presses\" names both the counter and the state count: each kind and gauge needs a name of its own",
            "the gauge \"level\" is voided into \"presses\", which the machine counts itself: give it a kind of its own",
            "the gauges \"level\" and \"Level\" differ only in case: SQLite's column names do not",
            "the durable invariant \"balance\" names \"nowhere\", which is no kind or gauge",
        ]
        #expect(problems == expected)
    }

    @Test("a balance holds when its total is the sum of its parts, and not when that sum overflows")
    func balances() {
        let balance = DurableInvariant("b", "total", equals: ["a", "b"])
        #expect(balance.holds { ["total": 5, "a": 2, "b": 3][$0] ?? 0 })
        #expect(!balance.holds { ["total": 6, "a": 2, "b": 3][$0] ?? 0 })
        #expect(!balance.holds { ["total": Int.min + 1, "a": Int.max, "b": 2][$0] ?? 0 }, "a sum that wrapped is not taken for the total")
        #expect(DurableInvariant("empty", "total", equals: []).holds { _ in 0 })
    }
}
