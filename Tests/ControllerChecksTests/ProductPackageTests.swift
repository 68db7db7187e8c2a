import ControllerChecks
import ControllerTestSupport
import Foundation
import Testing

@Suite struct ProductPackageTests {
    let root = repositoryRoot.path

    @Test func findsEachDaemonsPackage() throws {
        #expect(try ProductPackage(declaring: "turnstiled", in: root).path == root)
        #expect(try ProductPackage(declaring: "barrierd", in: root).path == root + "/Examples/ParkingBarrier")
        // A chart controller: no Package.swift declares it, its product.conf names it.
        #expect(try ProductPackage(declaring: "doord", in: root).path == root + "/Examples/Charts/door")
        let unknown = #expect(throws: CheckFailure.self) { try ProductPackage(declaring: "turnstile", in: root) }
        #expect(unknown?.message.contains(#".executable(name: "turnstile", ...)"#) == true)
        #expect(unknown?.message.contains("PRODUCT=turnstile") == true)
    }

    @Test func aChartControllersLoopCheckDecodes() throws {
        let package = try ProductPackage(declaring: "doord", in: root)
        let loop = try package.check("loop", as: LoopCheckSpec.self)
        #expect(FileManager.default.fileExists(atPath: package.path + "/" + loop.script))
    }

    @Test func everyProductsChecksDecode() throws {
        for product in ["turnstiled", "barrierd"] {
            let package = try ProductPackage(declaring: product, in: root)
            let crash = try package.check("crash", as: CrashCheckSpec.self)
            #expect(!crash.counted.isEmpty)
            let loop = try package.check("loop", as: LoopCheckSpec.self)
            #expect(FileManager.default.fileExists(atPath: package.path + "/" + loop.script))
        }
    }

    @Test func aMalformedEntryIsNamedWithItsFile() throws {
        let folder = try TemporaryDirectory()
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("packaging"), withIntermediateDirectories: true)
        _ = try folder.file("Package.swift", #".executable(name:   "gated", targets: [])"#)
        let checks = try folder.file("packaging/checks.json", #"{"crash": {"inputs": [["pulse"]], "counted": [], "summary": []}}"#)
        let package = try ProductPackage(declaring: "gated", in: folder.url.path)
        let failure = #expect(throws: CheckFailure.self) { try package.check("crash", as: CrashCheckSpec.self) }
        #expect(failure?.message.hasPrefix(checks + " has no usable \"crash\" entry") == true)
        #expect(failure?.message.contains("a ctl command and its line") == true)
        #expect(throws: CheckFailure.self) { try package.check("loop", as: LoopCheckSpec.self) }
    }

    @Test func loopSettingsAreQuotedForTheShell() throws {
        let package = try ProductPackage(declaring: "turnstiled", in: root)
        let loop = try package.check("loop", as: LoopCheckSpec.self)
        let settings = loop.shellAssignments(package: package, board: "/tmp/it's a board.toml", pulses: 5)
        #expect(settings.contains(#"board='/tmp/it'\''s a board.toml'"#))
        #expect(settings.contains("ctl_pulse_counter='\(loop.ctlPulsesCount)'"))
        let counts = loop.expectedCounts(afterPulses: 5)
        #expect(counts[loop.ctlPulsesCount] == loop.expectedCounts[loop.ctlPulsesCount, default: 0] + 5)
        #expect(Shell.quoted("a'b") == #"'a'\''b'"#)
    }

    @Test func aCrashTestWithoutKillsIsRefusedBeforeItStartsAnything() throws {
        let package = try ProductPackage(declaring: "turnstiled", in: root)
        let spec = try package.check("crash", as: CrashCheckSpec.self)
        let failure = #expect(throws: CheckFailure.self) {
            try CrashTest(daemon: "/nonexistent/turnstiled", package: package, spec: spec, kills: 0, seed: 1, board: nil).run()
        }
        #expect(failure?.message == "a crash test needs at least one kill, not 0")
    }
}
