import ArgumentParser
import ControllerCommandLine
import ControllerDaemon
import ControllerFSM
import ControllerHost
import Turnstile

@main
struct Turnstiled: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "turnstiled",
        abstract: TurnstileApplication.summary,
        discussion: ExitStatus.help(TurnstileApplication.self),
        version: "0.1.0",
        subcommands: [Simulate<TurnstileApplication>.self, Run.self, Lines.self, Check<TurnstileApplication>.self, Graph<TurnstileApplication>.self, Soak<TurnstileApplication>.self, Stats<TurnstileApplication>.self, Ctl.self],
        defaultSubcommand: Simulate<TurnstileApplication>.self)

    static func main() async {
        await CommandLineEntry.main(Self.self, program: "turnstiled", daemonCommand: Run._commandName)
    }
}

let exitStatusHelp = ExitStatus.help(TurnstileApplication.self)
