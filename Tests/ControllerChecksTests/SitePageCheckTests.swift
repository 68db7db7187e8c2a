import ControllerChecks
import Testing

@Suite struct SitePageCheckTests {
    let plan = [
        SitePageCheck.PlannedNode(number: 1, app: "turnstile", emergencyState: "emergency"),
        SitePageCheck.PlannedNode(number: 2, app: "barrier", emergencyState: "emergency"),
    ]

    /// A row as the page's script draws it: node, application, availability, state, last event,
    /// outbox, problems, totals.
    func row(_ node: String, _ app: String, available: String = "online", state: String = "emergency", outbox: String = "0") -> String {
        let since = available == "online" ? "online since 12:00:01" : "offline since 12:01:00"
        return #"<tr data-node="\#(node)" data-available="\#(available)" data-problems="no"><td>\#(node)</td><td>\#(app)</td><td>\#(since)</td><td>\#(state)</td><td>1 s ago</td><td>\#(outbox)</td><td>none</td><td>coins 3</td></tr>"#
    }

    func page(rows: [String], summary: String = "2 controllers, 2 online", sums: [String] = ["barrier (1)", "turnstile (1)"], live: Bool = true) -> String {
        """
        <html><body data-live="\(live ? "yes" : "no")"><div id="summary">\(summary)</div>
        <table id="nodes"><tbody>
        \(rows.joined(separator: "\n"))
        </tbody></table>
        <table id="sums"><tbody>\(sums.map { "<tr><td>\($0)</td><td>coins 3</td></tr>" }.joined())</tbody></table></body></html>
        """
    }

    @Test func aPageShowingEveryNodeOnlineInItsEmergencyStatePasses() {
        #expect(SitePageCheck.problems(dom: page(rows: [row("gate-1", "turnstile"), row("gate-2", "barrier")]), plan: plan) == [])
    }

    @Test func eachWayAPageCanBeWrongIsNamed() {
        let cases: [(String, String)] = [
            (page(rows: [row("gate-1", "turnstile"), row("gate-2", "barrier")], live: false), "never got an answer"),
            (page(rows: [row("gate-1", "turnstile")], summary: "1 controller, 1 online", sums: ["turnstile (1)"]), "lists 1 nodes"),
            (page(rows: [row("gate-1", "turnstile"), row("gate-2", "barrier", available: "offline")], summary: "2 controllers, 1 online"), "gate-2 is shown \"offline since"),
            (page(rows: [row("gate-1", "turnstile", state: "locked"), row("gate-2", "barrier")]), "gate-1 is shown a turnstile in \"locked\""),
            (page(rows: [row("gate-1", "barrier"), row("gate-2", "barrier")]), "not a turnstile in emergency"),
            (page(rows: [row("gate-1", "turnstile"), row("gate-2", "barrier", outbox: "4")]), "gate-2's outbox is shown as \"4\""),
            (page(rows: [row("gate-1", "turnstile"), row("gate-2", "barrier")], summary: "2 controllers, 1 online"), "the summary does not say 2 controllers, 2 online"),
            (page(rows: [row("gate-1", "turnstile"), row("gate-2", "barrier")], sums: ["turnstile (2)"]), "the site's sums name turnstile (2), the plan's nodes are barrier (1), turnstile (1)"),
        ]
        for (dom, expected) in cases {
            let problems = SitePageCheck.problems(dom: dom, plan: plan)
            #expect(problems.contains { $0.contains(expected) }, "\(expected): \(problems)")
        }
    }

    @Test func thePlanIsReadFromSitePlansLines() throws {
        let nodes = try SitePageCheck.PlannedNode.plan("1\tturnstiled\t./boards/sim.toml\tturnstile\temergency\n2\tbarrierd\tExamples/ParkingBarrier/boards/sim.toml\tbarrier\temergency\n")
        #expect(nodes == plan)
        #expect(nodes.map(\.node) == ["gate-1", "gate-2"])
        #expect(throws: CheckFailure.self) { try SitePageCheck.PlannedNode.plan("1\tturnstiled\tturnstile\temergency\n") }
    }
}
