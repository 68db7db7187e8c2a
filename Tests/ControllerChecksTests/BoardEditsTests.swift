import ControllerChecks
import Testing

@Suite struct BoardEditsTests {
    let board = """
        [chip]
        travel_time = "3s"   # the arm
        [barrier]
          close_delay = "2s"
        travel_time = "9s"
        """

    @Test func changesOnlyTheKeyOfItsSection() {
        let (text, missing) = BoardEdits.edited(board, ["barrier.travel_time": #""300ms""#, "barrier.close_delay": #""250ms""#])
        #expect(missing.isEmpty)
        #expect(text == """
            [chip]
            travel_time = "3s"   # the arm
            [barrier]
            close_delay = "250ms"
            travel_time = "300ms"
            """)
    }

    @Test func namesEveryKeyItCouldNotFind() {
        let (text, missing) = BoardEdits.edited(board, ["sim.travel_time": "1", "barrier.nope": "2", "chip.travel_time": "3"])
        #expect(missing == ["[barrier] nope", "[sim] travel_time"])
        #expect(text.contains("travel_time = 3\n"))
    }

    @Test func noEditsLeavesTheTextAsItWas() {
        #expect(BoardEdits.edited(board, [:]) == (board, []))
    }

    @Test func aSectionsNameMayHaveDots() {
        let board = "[inputs.coin]\ndebounce = \"10ms\"\n[inputs.push]\ndebounce = \"10ms\"\n"
        let (text, missing) = BoardEdits.edited(board, ["inputs.coin.debounce": #""300us""#])
        #expect(missing.isEmpty)
        #expect(text == "[inputs.coin]\ndebounce = \"300us\"\n[inputs.push]\ndebounce = \"10ms\"\n")
    }
}
