import CLinux
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A thread of its own for work that blocks (an event loop in `poll`, a store's commits, a
/// signal pipe's reads), started with `pthread_create`: Foundation's `Thread` would pull all of
/// Foundation, and with it ICU's data, into a daemon that needs nothing else of it.
public enum DetachedThread {
    /// The kernel keeps 15 bytes of a thread's name (`ps -L`, `top -H`, gdb show it).
    public static let maxNameBytes = 15

    /// Starts `body` on a new detached thread named `name` (cut to ``maxNameBytes``). The thread
    /// inherits the caller's signal mask, as any pthread does.
    ///
    /// A process that cannot start a thread (`EAGAIN`: the user's or the system's thread limit)
    /// cannot run its daemon either; it stops with the reason and the limit to look at.
    public static func start(name: String, _ body: @escaping @Sendable () -> Void) {
        let work = Unmanaged.passRetained(Work(name: name, body: body)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, { argument in
            let work = Unmanaged<Work>.fromOpaque(argument!).takeRetainedValue()
            work.run()
            return nil
        }, work)
        guard status == 0 else {
            Unmanaged<Work>.fromOpaque(work).release()
            fatalError("cannot start the \(name) thread: \(SystemErrno.describe(status)) (errno \(status)); "
                + "check the thread limits (ulimit -u, /proc/sys/kernel/threads-max, systemd's TasksMax=)")
        }
        pthread_detach(thread)
    }

    private final class Work {
        let name: String
        let body: @Sendable () -> Void

        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }

        func run() {
            var bytes = Array(name.utf8.prefix(DetachedThread.maxNameBytes))
            bytes.append(0)
            bytes.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { _ = clinux_thread_set_name($0.baseAddress!) }
            }
            body()
        }
    }
}
