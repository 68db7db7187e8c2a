/// The site page (`fleet --http`) as a browser drew it, checked against the site test's plan:
/// a row per node, each online, showing its application and the state the site-wide emergency
/// put it in, nothing waiting in its outbox, and the application sums counting each node once.
public enum SitePageCheck {
    /// A node of the site test, as `controller-checks site-plan` printed it (a tab-separated line:
    /// number, product, board, application, emergency state).
    public struct PlannedNode: Sendable, Equatable {
        public let number: Int
        public let app: String
        public let emergencyState: String

        /// Its name on the broker (`--mqtt-node`).
        public var node: String { "gate-\(number)" }

        public init(number: Int, app: String, emergencyState: String) {
            self.number = number
            self.app = app
            self.emergencyState = emergencyState
        }

        /// The lines `site-plan` printed.
        public static func plan(_ text: String) throws(CheckFailure) -> [PlannedNode] {
            var nodes: [PlannedNode] = []
            for line in text.split(separator: "\n") {
                let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
                guard fields.count == 5, let number = Int(fields[0]) else {
                    throw CheckFailure("the site plan's line \(nodes.count + 1) is not NUMBER, PRODUCT, BOARD, APP, STATE separated by tabs: \(line)")
                }
                nodes.append(PlannedNode(number: number, app: String(fields[3]), emergencyState: String(fields[4])))
            }
            return nodes
        }
    }

    /// What is wrong with the page `dom` (Chromium's `--dump-dom` after its script ran) for the
    /// `plan`'s nodes; empty when nothing is.
    public static func problems(dom: String, plan: [PlannedNode]) -> [String] {
        var problems: [String] = []
        if !dom.contains(#"data-live="yes""#) {
            problems.append("the page's script never got an answer from /site.json (body is not data-live=yes)")
        }
        let rows = dom.matches(of: #/<tr data-node="([^"]+)" data-available="([^"]*)" data-problems="([^"]*)">(.*?)</tr>/#)
        let expected = plan.map(\.node).sorted()
        let listed = rows.map { String($0.output.1) }
        if listed.sorted() != expected {
            problems.append("the page lists \(listed.count) nodes, not the plan's \(expected.count) (\(expected.first ?? "") to \(expected.last ?? "")): \(listed.sorted().prefix(5))…")
        }
        let planned = Dictionary(plan.map { ($0.node, $0) }, uniquingKeysWith: { first, _ in first })
        for row in rows {
            let node = String(row.output.1)
            let cells = row.output.4.matches(of: #/<td>([^<]*)</td>/#).map { String($0.output.1) }
            guard cells.count >= 6 else {
                problems.append("\(node)'s row has \(cells.count) cells, not the 6 (node, application, availability, state, problems, outbox) or more")
                continue
            }
            if row.output.2 != "online" || !cells[2].hasPrefix("online since ") {
                problems.append("\(node) is shown \"\(cells[2])\", not online since its start")
            }
            if let plannedNode = planned[node], (cells[1], cells[3]) != (plannedNode.app, plannedNode.emergencyState) {
                problems.append("\(node) is shown a \(cells[1]) in \"\(cells[3])\", not a \(plannedNode.app) in \(plannedNode.emergencyState) after the site-wide alarm")
            }
            if cells[5] != "0" {
                problems.append("\(node)'s outbox is shown as \"\(cells[5])\", not 0")
            }
        }
        if !dom.contains("\(plan.count) controllers, \(plan.count) online") {
            problems.append("the summary does not say \(plan.count) controllers, \(plan.count) online")
        }
        var shownSums: [String: Int] = [:]
        for sum in dom.matches(of: #/<tr><td>([a-z]+) \((\d+)\)</td>/#) {
            shownSums[String(sum.output.1)] = Int(sum.output.2)
        }
        let plannedSums = Dictionary(plan.map { ($0.app, 1) }, uniquingKeysWith: +)
        if shownSums != plannedSums {
            func listed(_ counts: [String: Int]) -> String {
                counts.isEmpty ? "none" : counts.sorted { $0.key < $1.key }.map { "\($0.key) (\($0.value))" }.joined(separator: ", ")
            }
            problems.append("the site's sums name \(listed(shownSums)), the plan's nodes are \(listed(plannedSums))")
        }
        return problems
    }
}
