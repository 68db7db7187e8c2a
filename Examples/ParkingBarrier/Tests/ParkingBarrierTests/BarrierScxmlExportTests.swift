import ControllerSCXML
import ParkingBarrier
import Testing

/// `barrierd graph --format scxml` is a chart the SCXML loader reads back and builds as the
/// barrier's own machine: the same states, nesting, initial states and rows, guards as flags.
@Suite("The barrier's machine as SCXML, read back")
struct BarrierScxmlExportTests {
    @Test("the export reads back and builds as the barrier's machine")
    func roundTrip() throws {
        #expect(try SCXMLExportCheck.differences(ParkingBarrier.table, name: "barrier") == [])
    }
}
