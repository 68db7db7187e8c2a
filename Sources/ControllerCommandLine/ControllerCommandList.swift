import ControllerRuntime
import ArgumentParser
import ControllerHost

/// An application's subcommands, in the order `--help` lists them.
enum ControllerCommandList<App: ControllerApplication> {
    static var all: [any ParsableCommand.Type] {
        [Simulate<App>.self, Run<App>.self, Lines<App>.self, Check<App>.self, Graph<App>.self, Soak<App>.self, Stats<App>.self, Ctl<App>.self, Fleet<App>.self]
    }

    /// The command that runs the daemon: its signals are taken before anything else.
    static var daemonCommandName: String { "run" }
}
