import ControllerRuntime
import ArgumentParser
import ControllerDaemon

/// Runs `body`, turning its refusal of an option into ArgumentParser's usage error: the message
/// as the runtime words it, the exit status 64 and the pointer to `--help` as every option's.
func usage<Value>(_ body: () throws(DaemonOptionError) -> Value) throws(ValidationError) -> Value {
    do {
        return try body()
    } catch {
        throw ValidationError(error.description)
    }
}
