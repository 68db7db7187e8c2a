import ControllerChecks
import ControllerHost
import ControllerTestSupport
import Foundation
import Testing
import Turnstile

/// The crash check (`controller-checks crash`, which CI runs on the shipped binaries with 50
/// kills) on the debug build with a few: it passes on turnstiled, and it fails, naming the seed,
/// when the money rule it is given does not hold. The daemon's start and commands get the
/// tests' bound (`TestTimeouts.daemon`): the debug build, under sanitizers or emulation, beside
/// the whole suite, starts far slower than the shipped binary the check's own bound is for.
@Suite struct TurnstiledCrashCheckCLITests {
    let package: ProductPackage
    let spec: CrashCheckSpec

    init() throws {
        package = try ProductPackage(declaring: "turnstiled", in: repositoryRoot.path)
        spec = try package.check("crash", as: CrashCheckSpec.self)
    }

    @Test func everyReportedCountSurvivesEveryKill() async throws {
        let daemon = try Turnstiled.executable.get().path
        let lines = try await offThePool { [package, spec] in
            try CrashTest(daemon: daemon, package: package, spec: spec, kills: 3, seed: 11, board: nil,
                      startTimeout: TestTimeouts.daemon, commandTimeout: TestTimeouts.daemon).run()
        }
        let last = try #require(lines.last)
        #expect(last.hasPrefix("crash test of turnstiled: 3 kills,"), "\(lines)")
        #expect(last.contains("every balance held"))
    }

    /// The money rule checks.json gives is the turnstile's own (its `durableInvariants`, whose
    /// last part is the standing credit).
    @Test func theMoneyRuleIsTheTurnstilesOwn() throws {
        let money = try #require(TurnstileApplication.durableInvariants.first { $0.name == "money" })
        let balance = try #require(spec.balances.first)
        #expect(balance.total == money.total)
        #expect(balance.parts + [balance.standing] == money.parts)
    }

    /// The site test's expectations of a turnstile are the turnstile's own words.
    @Test func theSiteEntryNamesTheTurnstilesApplicationAndState() throws {
        let site = try package.check("site", as: SiteCheckSpec.self)
        #expect(site.app == TurnstileApplication.name)
        #expect(site.emergencyState == TurnstileState.emergency.name)
    }

    @Test func aBalanceThatDoesNotHoldFailsNamingTheSeed() async throws {
        let daemon = try Turnstiled.executable.get().path
        let wrong = try JSONDecoder().decode(CrashCheckSpec.self, from: Data(#"""
            {"inputs": [["pulse", "coin"]], "counted": ["coins"], "summary": [],
             "balances": [{"total": "coins", "parts": ["passages"], "standing": "credit", "voidedByRestart": "creditsVoidedByRestart"}]}
            """#.utf8))
        let failure = await #expect(throws: CheckFailure.self) {
            try await offThePool { [package] in
                try CrashTest(daemon: daemon, package: package, spec: wrong, kills: 2, seed: 5, board: nil,
                          startTimeout: TestTimeouts.daemon, commandTimeout: TestTimeouts.daemon).run()
            }
        }
        let message = try #require(failure?.message)
        #expect(message.hasPrefix("crash test FAILED (seed 5: SEED=5 repeats it; files kept in "), "\(message)")
        #expect(message.contains("coins does not balance"), "\(message)")
        let folder = try #require(message.split(separator: "files kept in ").last?.split(separator: ")").first.map(String.init))
        #expect(processes(mentioning: folder).isEmpty, "a failed run left its daemon running: \(processes(mentioning: folder))")
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// The command lines of the processes running with `text` in them (from /proc).
    func processes(mentioning text: String) -> [String] {
        let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.filter { $0.allSatisfy(\.isNumber) } ?? []
        return pids.compactMap { pid in
            guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return nil }
            let command = String(decoding: data.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
            return command.contains(text) ? command : nil
        }
    }
}
