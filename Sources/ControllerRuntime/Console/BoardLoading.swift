import ControllerFSM
import ControllerHost
import ControllerSimulation

/// Reads a board to simulate, or the built-in one, refusing timings the simulation cannot
/// honour (see `Simulation.checkTimings`); a bad file exits with status 2.
package func loadSimulatedBoard<App: ControllerApplication>(_: App.Type, _ path: String?) throws -> Board<App> {
    let board = try loadBoard(App.self, path)
    do {
        try Simulation<App>.checkTimings(of: board, file: path ?? "boards/sim.toml")
    } catch {
        throw ControllerExit.badInput.said("\(error)", cause: error)
    }
    return board
}

/// Reads the board a command runs, as every command that runs one reads it (`check`, `run`, a
/// SIGHUP reload: ``Board/loadRunnable(path:)``); without a path, the built-in simulated board.
/// A bad file exits with status 2.
package func loadRunnableBoard<App: ControllerApplication>(_: App.Type, _ path: String?) throws -> Board<App> {
    guard let path else { return try loadSimulatedBoard(App.self, nil) }
    do {
        return try Board<App>.loadRunnable(path: path)
    } catch {
        throw ControllerExit.badInput.said("\(error)", cause: error)
    }
}

/// Reads the board file, or the built-in simulated board; a bad file exits with status 2.
package func loadBoard<App: ControllerApplication>(_: App.Type, _ path: String?) throws -> Board<App> {
    guard let path else { return Board<App>.builtIn }
    do {
        return try Board<App>.load(path: path)
    } catch {
        throw ControllerExit.badInput.said("\(error)", cause: error)
    }
}
