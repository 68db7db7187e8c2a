import ControllerFSMSim
import Foundation

/// A node's scenario for the site test: from a start drawn in its first second on, whole cycles
/// of its product's traffic while a cycle (with its settling time) still ends within `seconds`.
/// The same seed gives the same scenario.
public enum SiteTraffic {
    /// The first cycle starts this long after the run's start, plus up to a second.
    public static let firstStartSeconds = 0.5

    public static func script(_ spec: SiteCheckSpec, seed: UInt64, seconds: Double) -> String {
        var random = SplitMix64(seed: seed)
        func draw(_ range: [Double]) -> Double { range[0] + random.nextUnitInterval() * (range[1] - range[0]) }
        let longestCycle = spec.cycle.reduce(0) { $0 + $1.after[1] } + spec.settleSeconds
        var lines: [String] = []
        var time = firstStartSeconds + random.nextUnitInterval()
        while time + longestCycle <= seconds {
            for step in spec.cycle {
                time += draw(step.after)
                lines.append(String(format: "%.3f %@", time, step.line))
            }
            time += draw(spec.pause)
        }
        return lines.map { $0 + "\n" }.joined()
    }
}

/// The site test's nodes: node `i` (from 1) runs the products that have a `"site"` entry in
/// turn (turnstiled, then each package under Examples/ in name order), with its own traffic.
public struct SitePlan {
    public struct Node {
        public let number: Int
        public let package: ProductPackage
        public let spec: SiteCheckSpec
    }

    public let nodes: [Node]

    public init(nodes count: Int, repository: String) throws(CheckFailure) {
        var products: [(ProductPackage, SiteCheckSpec)] = []
        for package in try ProductPackage.all(in: repository) {
            guard let spec = try package.checkIfPresent("site", as: SiteCheckSpec.self) else { continue }
            products.append((package, spec))
        }
        guard !products.isEmpty else { throw CheckFailure("no product's packaging/checks.json has a \"site\" entry: the site test has nothing to run") }
        nodes = (1...max(1, count)).map { number in
            let (package, spec) = products[(number - 1) % products.count]
            return Node(number: number, package: package, spec: spec)
        }
    }
}
