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

    /// Chromium's longest run: a run past it (a browser stuck on a loaded machine) is killed and
    /// its test fails, rather than holding the test run.
    static let longestRun = 120

    /// The DOM of `url` after its scripts have had `milliseconds` of (virtual) time. Chromium
    /// runs on a thread of its own, not the test's (``offThePool(_:)``): a browser that takes a
    /// minute on a loaded machine must not hold one of the few threads every other test's task
    /// resumes on (a run under ThreadSanitizer once resumed a daemon test's task ten minutes
    /// late, and its timer had fired).
    static func dumpDOM(_ chromium: String, url: String, milliseconds: Int = 3_000) async throws -> String {
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("headless-chromium-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: profile) }
        let (status, dom) = try await offThePool {
            try Process.output(of: "/usr/bin/timeout", [
                "--kill-after=5", "\(longestRun)", chromium,
                "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(profile.path)", "--virtual-time-budget=\(milliseconds)", "--dump-dom", url,
            ])
        }
        #expect(status != 124 && status != 137, "Chromium ran past \(longestRun) s on \(url)")
        return String(decoding: dom, as: UTF8.self)
    }
}
