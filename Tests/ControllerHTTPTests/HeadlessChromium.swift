import ControllerTestSupport
import Foundation
import Testing

/// Debian's Chromium, headless, for the tests that run the pages' scripts. Skipped where it is not
/// installed, required under scripts/test.sh (CONTROLLER_REQUIRE_BROWSER=1; its core packages,
/// scripts/lib/packages.sh, bring it), as the MQTT broker's tests are with theirs.
enum HeadlessChromium {
    static let path = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static let required = ProcessInfo.processInfo.environment["CONTROLLER_REQUIRE_BROWSER"] == "1"
    static var enabled: Bool { path != nil || required }
    static let missing: Comment = "no Chromium: apt-get install chromium (scripts/lib/packages.sh core)"

    /// The DOM of `url` after its scripts have had `milliseconds` of (virtual) time.
    static func dumpDOM(_ chromium: String, url: String, milliseconds: Int = 3_000) throws -> String {
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("headless-chromium-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: profile) }
        let (_, dom) = try Process.output(of: chromium, [
            "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(profile.path)", "--virtual-time-budget=\(milliseconds)", "--dump-dom", url,
        ])
        return String(decoding: dom, as: UTF8.self)
    }
}
