import ControllerTestSupport
import TurnstileTestSupport
import Testing
import ControllerHost
import Turnstile
import ControllerSimulation

/// A coin pulse bounces on the line; the debouncer must turn it into exactly one `coin`.
@Suite("Scenario<TurnstileApplication>: a bouncy coin counts once")
struct CoinDebounceScenarioTests {
    @Test("each coin pulse is one coin, whatever the bounce and the seed",
          arguments: [0, 1, 2, 4, 6, 8], [1, 2, 3, 42, 0xDEAD_BEEF] as [UInt64])
    func bouncyCoinCountsOnce(bounceEdges: Int, seed: UInt64) throws {
        let board = try simBoard(replacing: ["bounce_edges = 4": "bounce_edges = \(bounceEdges)"])
        #expect(board.sim.bounceEdges == bounceEdges)
        let run = try playExpectingSuccess("""
            0.0   coin
            0.2   expect counter coins 1
            0.2   expect credit 1
            0.2   expect state unlocked
            1.0   coin
            1.2   expect counter coins 2
            1.2   expect credit 2
            2     end
            """, board: board, seed: seed)
        let coins = run.taken(.coin)
        #expect(coins.count == 2, "coins taken: \(coins.map(\.at))")
        #expect(run.ignored.isEmpty, "nothing else reached the machine: \(run.ignored)")
        for (coin, start) in zip(coins, [seconds(0), seconds(1)]) {
            #expect(acceptance(ofPulseAt: start).contains(coin.at),
                    "a coin pulse at \(start) was taken at \(coin.at), not once stable for the debounce period")
        }
        #expect(run.counters.coins == 2)
    }

    @Test("clean edges are taken exactly one debounce period after the pulse starts")
    func cleanEdgeTakenAfterDebounce() throws {
        let board = try simBoard(replacing: ["bounce_edges = 4": "bounce_edges = 0"])
        let run = try playExpectingSuccess("0.25 coin", board: board)
        #expect(run.taken(.coin).map(\.at) == [seconds(0.26)])
    }

    @Test("the bounce is real: with debouncing off the same pulse is taken as several coins")
    func bounceIsRealWithoutDebounce() throws {
        let board = try simBoard(replacing: [
            "[inputs.coin]\nline = \"COIN\"\nactive_low = true\nbias = \"pull-up\"\ndebounce = \"10ms\"":
                "[inputs.coin]\nline = \"COIN\"\nactive_low = true\nbias = \"pull-up\"\ndebounce = \"0ms\"",
        ])
        let run = try play("0 coin", board: board)
        // The press bounces active twice more and the release twice: 1 + 2 + 2 active edges.
        #expect(run.counters.coins == 5, "without debouncing, 4 bounce edges per change give 5 active edges")
    }
}
