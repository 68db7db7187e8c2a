import Foundation

/// The Swift package that declares a controller's daemon as an executable product (this
/// repository's root for `turnstiled`, `Examples/ParkingBarrier` for `barrierd`, any package
/// under `Examples/` for the next), and what its `packaging/checks.json` says drives the checks.
public struct ProductPackage: Sendable {
    public let product: String
    /// The package's folder.
    public let path: String

    /// The package under `repository` (its root, then each `Examples/*`) whose Package.swift
    /// declares `.executable(name: "PRODUCT"`; else the chart controller (`Examples/Charts/*`)
    /// whose `packaging/product.conf` says `PRODUCT=PRODUCT`, as `scripts/product-package.sh`
    /// finds it.
    public init(declaring product: String, in repository: String) throws(CheckFailure) {
        let examples = (try? FileManager.default.contentsOfDirectory(atPath: repository + "/Examples")) ?? []
        let candidates = [repository] + examples.sorted().map { repository + "/Examples/" + $0 }
        let declaration = ".executable(name:\"\(product)\""
        for candidate in candidates {
            guard let manifest = try? String(contentsOfFile: candidate + "/Package.swift", encoding: .utf8) else { continue }
            if manifest.replacingOccurrences(of: #"name:\s+"#, with: "name:", options: .regularExpression).contains(declaration) {
                self.product = product
                self.path = candidate
                return
            }
        }
        let charts = ((try? FileManager.default.contentsOfDirectory(atPath: repository + "/Examples/Charts")) ?? []).sorted()
        for chart in charts.map({ repository + "/Examples/Charts/" + $0 }) {
            if Self.declaredProduct(confAt: chart + "/packaging/product.conf") == product {
                self.product = product
                self.path = chart
                return
            }
        }
        throw CheckFailure("no Package.swift in \(repository) or under its Examples/ declares .executable(name: \"\(product)\", ...), and no Examples/Charts/*/packaging/product.conf says PRODUCT=\(product); a product's checks are found through its package")
    }

    /// Every controller's package under `repository`: its root's, then each under `Examples/` in
    /// name order, each that has a `packaging/product.conf` (`PRODUCT=name`), as the test script
    /// finds them.
    public static func all(in repository: String) throws(CheckFailure) -> [ProductPackage] {
        let examples = ((try? FileManager.default.contentsOfDirectory(atPath: repository + "/Examples")) ?? []).sorted()
        var packages: [ProductPackage] = []
        for folder in [repository] + examples.map({ repository + "/Examples/" + $0 }) {
            let conf = folder + "/packaging/product.conf"
            guard FileManager.default.fileExists(atPath: conf) else { continue }
            guard let product = declaredProduct(confAt: conf) else {
                throw CheckFailure("\(conf) has no PRODUCT= line: it names the daemon the package ships")
            }
            packages.append(ProductPackage(product: product, path: folder))
        }
        return packages
    }

    /// The daemon a `packaging/product.conf` names (`PRODUCT=name`); nil when it cannot be read
    /// or names none.
    private static func declaredProduct(confAt path: String) -> String? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        return text.split(separator: "\n").first { $0.hasPrefix("PRODUCT=") }.map { String($0.dropFirst("PRODUCT=".count)) }
    }

    private init(product: String, path: String) {
        self.product = product
        self.path = path
    }

    /// Its `packaging/checks.json`.
    public var checksPath: String { path + "/packaging/checks.json" }

    /// Its simulated board, `boards/sim.toml`.
    public var simulatedBoardPath: String { path + "/boards/sim.toml" }

    /// Its simulated board with `edits` made (see ``BoardEdits``), written to `path`; the board
    /// itself when there are none.
    public func simulatedBoard(editedWith edits: [String: String], writingTo path: String) throws(CheckFailure) -> String {
        let source = simulatedBoardPath
        guard !edits.isEmpty else { return source }
        guard let text = try? String(contentsOfFile: source, encoding: .utf8) else { throw CheckFailure("cannot read \(source)") }
        let (edited, missing) = BoardEdits.edited(text, edits)
        guard missing.isEmpty else {
            throw CheckFailure("\(source) has no \(missing.joined(separator: ", ")) to change; update boardEdits in \(checksPath)")
        }
        guard FileManager.default.createFile(atPath: path, contents: Data(edited.utf8)) else { throw CheckFailure("cannot write \(path)") }
        return path
    }

    /// The checks.json entry `name` ("crash", "loop"), decoded.
    public func check<Entry: Decodable>(_ name: String, as type: Entry.Type) throws(CheckFailure) -> Entry {
        guard FileManager.default.fileExists(atPath: checksPath) else {
            throw CheckFailure("\(checksPath) is missing: a product's package says what drives its checks there (copy packaging/checks.json, turnstiled's)")
        }
        guard let entry = try checkIfPresent(name, as: type) else {
            throw CheckFailure("\(checksPath) has no usable \"\(name)\" entry (no \"\(name)\" entry): see the \"about\" there for what it holds")
        }
        return entry
    }

    /// The checks.json entry `name`, decoded; nil when the package has no checks.json or the
    /// file no such entry (a check the product does not take part in).
    public func checkIfPresent<Entry: Decodable>(_ name: String, as type: Entry.Type) throws(CheckFailure) -> Entry? {
        guard let data = FileManager.default.contents(atPath: checksPath) else { return nil }
        do {
            // Each check decodes its own entry only: the others have shapes of their own.
            guard let entries = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
                throw CheckFailure("not a JSON object")
            }
            guard let entry = entries[name] else { return nil }
            return try JSONDecoder().decode(Entry.self, from: JSONSerialization.data(withJSONObject: entry))
        } catch {
            throw CheckFailure("\(checksPath) has no usable \"\(name)\" entry (\(error)): see the \"about\" there for what it holds")
        }
    }

    /// The name a daemon binary gives itself: its `--help`'s `USAGE: NAME ...` line.
    public static func productName(ofDaemon daemon: String) throws(CheckFailure) -> String {
        let help = try ChildProcess.run([daemon, "--help"], timeout: .seconds(30))
        for line in help.output.split(separator: "\n") where line.hasPrefix("USAGE: ") {
            if let name = line.dropFirst("USAGE: ".count).split(separator: " ").first, !name.isEmpty { return String(name) }
        }
        throw CheckFailure("\(daemon) --help has no \"USAGE: NAME ...\" line: not a controller's daemon")
    }
}
