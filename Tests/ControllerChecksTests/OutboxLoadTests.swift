import ControllerChecks
import ControllerTestSupport
import Foundation
import Testing

@Suite struct OutboxLoadTests {
    let spec = try! JSONDecoder().decode(LoadCheckSpec.self, from: Data(#"{"cycle": ["coin", "push"]}"#.utf8))

    @Test func eventsComeEvenlyAtTheRateThenTheEnd() {
        let (text, events) = OutboxLoad.script(spec, seconds: 0.004, rate: 1_000)
        #expect(events == 4)
        #expect(text == """
            0.500000 coin
            0.501000 push
            0.502000 coin
            0.503000 push
            1.504000 end

            """)
    }

    @Test func everyEventOnceInOrderPassesRepeatsAside() {
        let received = [1, 2, 2, 3].map { #"{"sequence":\#($0),"kind":"coins"}"# }.joined(separator: "\n") + "\n"
        let result = OutboxLoad.received(received, expected: 3)
        #expect(result.messages == 4 && result.events == 3 && result.inOrder)
    }

    @Test func aMissingOrReorderedEventFails() {
        #expect(!OutboxLoad.received("{\"sequence\":1}\n{\"sequence\":3}\n", expected: 3).inOrder)
        #expect(!OutboxLoad.received("{\"sequence\":2}\n{\"sequence\":1}\n", expected: 2).inOrder)
        #expect(!OutboxLoad.received("{\"sequence\":1}\n{\"sequence\":2}\n", expected: 3).inOrder)
        #expect(!OutboxLoad.received("", expected: 1).inOrder)
    }

    @Test func theTurnstilesLoadBoardIsFastWhereTheTestNeedsIt() throws {
        let package = try ProductPackage(declaring: "turnstiled", in: repositoryRoot.path)
        let load = try package.check("load", as: LoadCheckSpec.self)
        let folder = try TemporaryDirectory()
        let board = try package.simulatedBoard(editedWith: load.boardEdits, writingTo: folder.url.appendingPathComponent("board.toml").path)
        let text = try String(contentsOfFile: board, encoding: .utf8)
        #expect(!text.contains(#"debounce = "10ms""#), "every input's debounce is shortened")
        #expect(text.contains(#"coin_pulse = "600us""#) && text.contains("bounce_edges = 0"))
    }
}
