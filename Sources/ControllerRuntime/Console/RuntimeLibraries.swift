import ControllerFSM
import ControllerFSMGpiod
import ControllerMQTT
import ControllerHost
import ControllerStore

/// The C libraries the daemon opens at run time (libgpiod for a real chip, SQLite for the count
/// database, libmosquitto for the site's broker): one binary serves machines with either
/// libgpiod, and none of them is needed for what does not use it (`simulate`, a simulated board).
///
/// A missing one is the same failure whichever it is: the message names the library and the
/// package to install, and the command exits ``ControllerExit/libraryMissing`` (5). `run` looks for
/// every library its options need before it touches anything — no line requested, no database
/// file created, no broker contacted — so a machine without one is left as it was.
enum RuntimeLibraries<App: ControllerApplication> {
    /// Loads each library `run` will use: libgpiod on a real chip, SQLite with `--database`,
    /// libmosquitto with `--mqtt`. The first that cannot be loaded is said on standard error,
    /// and `run` exits 5.
    static func requireForRun(realChip: Bool, database: String?, mqtt: String?) throws {
        if realChip {
            do {
                _ = try GpiodLibrary.current()
            } catch {
                throw refuse(error.naming(program: App.daemonName))
            }
        }
        if let database {
            do {
                try CountStore<App>.requireLibrary(path: database)
            } catch {
                throw refuse(error)
            }
        }
        if mqtt != nil {
            do {
                _ = try MQTTLibrary.open()
            } catch {
                throw refuse(error)
            }
        }
    }

    private static func refuse(_ error: any Error) -> ControllerExit {
        ControllerExit.libraryMissing.said("\(error)", cause: error)
    }
}

extension ControllerExit {
    /// The exit status for `error`, which stopped a command: ``libraryMissing`` (5) when it says
    /// a library is not installed, whichever library it is, else `otherwise` (the command's own
    /// status for its kind of failure).
    package static func of(_ error: any Error, otherwise: ControllerExit) -> ControllerExit {
        isMissingLibrary(error) ? libraryMissing : otherwise
    }

    static func isMissingLibrary(_ error: any Error) -> Bool {
        switch error {
        case GPIOError.libraryUnavailable: true
        case StoreError.sqliteUnavailable: true
        case MQTTError.libraryUnavailable, MQTTError.libraryTooOld: true
        default: false
        }
    }
}
