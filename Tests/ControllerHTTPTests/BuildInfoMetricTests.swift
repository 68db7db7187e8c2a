import ControllerDaemon
@testable import ControllerHTTP
import Testing
import Turnstile

@Suite("build_info")
struct BuildInfoMetricTests {
    @Test("<daemon>_build_info is 1, labelled with the version, the libgpiod found and the application")
    func labelled() {
        let metrics = ControllerMetrics<TurnstileApplication>()
        metrics.recordBuildInfo(version: "0.1.0", libgpiod: "libgpiod 2.3 (libgpiod.so.3)")
        let text = String(decoding: metrics.render(TurnstileEndpointsUnchangedTests.snapshot), as: UTF8.self)
        #expect(text.contains("# TYPE turnstiled_build_info gauge"), "\(text)")
        let line = text.split(separator: "\n").first { $0.hasPrefix("turnstiled_build_info{") }
        #expect(line?.contains(#"version="0.1.0""#) == true && line?.contains(#"libgpiod="libgpiod 2.3 (libgpiod.so.3)""#) == true
                && line?.contains(#"application="turnstile""#) == true && line?.hasSuffix(" 1.0") == true, "\(line ?? "")")
    }
}
