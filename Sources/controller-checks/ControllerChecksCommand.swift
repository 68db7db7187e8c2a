import ArgumentParser
import ControllerChecks
import Foundation

/// `controller-checks`: the checks CI runs on a controller's shipped daemon, driven by what its
/// package's `packaging/checks.json` says (run from the repository's root).
@main
struct ControllerChecksCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "controller-checks",
        abstract: "The checks CI runs on a controller's daemon, driven by its package's packaging/checks.json.",
        subcommands: [Crash.self, LoopSettings.self, SitePlanCommand.self, SitePageCommand.self, SiteResultsCommand.self,
                      LoadPlan.self, OutboxOrder.self, Status.self, SymbolSizesCommand.self])
}

/// Runs a check's `body`; a failure is said on standard error, and the exit status is 1.
func reportingFailure(_ body: () throws(CheckFailure) -> Void) throws {
    do {
        try body()
    } catch {
        FileHandle.standardError.write(Data("error: \(error.message)\n".utf8))
        throw ExitCode.failure
    }
}

/// The text of `path`, a file a check reads.
func read(_ path: String) throws(CheckFailure) -> String {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw CheckFailure("cannot read \(path)") }
    return text
}

/// A product, named on the command line, and the package under the repository that ships it.
struct ProductArgument: ParsableArguments {
    @Argument(help: "The product (turnstiled, barrierd).")
    var product: String
    @OptionGroup var repository: Repository

    func package() throws(CheckFailure) -> ProductPackage {
        try ProductPackage(declaring: product, in: repository.repository)
    }
}

/// Where the repository is, and the product a daemon binary is.
struct Repository: ParsableArguments {
    @Option(help: "The repository's root, whose Package.swift or Examples/*/Package.swift declares the product.")
    var repository = FileManager.default.currentDirectoryPath

    func package(ofDaemon daemon: String) throws(CheckFailure) -> ProductPackage {
        try ProductPackage(declaring: ProductPackage.productName(ofDaemon: daemon), in: repository)
    }
}
