import Foundation
import ParkingBarrier
import Testing

/// The checks CI runs on barrierd read packaging/checks.json; what its "site" entry expects of a
/// barrier is in the barrier's own words.
@Suite("Parking barrier: its checks.json in its own words")
struct BarrierChecksTests {
    @Test func theSiteEntryNamesTheBarriersApplicationAndState() throws {
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let data = try Data(contentsOf: package.appendingPathComponent("packaging/checks.json"))
        let checks = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let site = try #require(checks["site"] as? [String: Any], "packaging/checks.json has no \"site\" entry")
        #expect(site["app"] as? String == ParkingBarrier.name)
        #expect(site["emergencyState"] as? String == BarrierState.emergency.name)
    }
}
