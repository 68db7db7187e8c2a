import ControllerFSM
import Synchronization
import Turnstile

#if canImport(Glibc)
import Glibc
#endif

/// The daemon's one event-loop thread: it waits on the input lines' descriptor and the signal
/// descriptor, with the controller's next deadline (a debounce period, a timer, a jam, the end
/// of an alarm pulse) as the timeout, and hands everything to the controller stamped with the
/// kernel's time. Nothing here allocates once the loop runs.
final class EventLoop<Chip: GPIOChip> {
    enum Ending {
        case signal(Int32)
        case gpioError(GPIOError)
        case waitFailed(errno: Int32)
    }

    private let controller: TurnstileController<Chip>
    private let clock: MonotonicClock
    private let status: RunStatus
    /// The input request's descriptor, then the signal descriptor; reserved once.
    private let descriptors: UnsafeMutablePointer<pollfd>
    private let descriptorCount: Int

    init(controller: TurnstileController<Chip>, signalDescriptor: Int32, clock: MonotonicClock, status: RunStatus) {
        self.controller = controller
        self.clock = clock
        self.status = status
        descriptors = .allocate(capacity: 2)
        var count = 0
        if let input = controller.pollDescriptor {
            descriptors[count] = pollfd(fd: input, events: Int16(POLLIN | POLLPRI), revents: 0)
            count += 1
        }
        descriptors[count] = pollfd(fd: signalDescriptor, events: Int16(POLLIN), revents: 0)
        descriptorCount = count + 1
    }

    deinit {
        descriptors.deallocate()
    }

    /// Runs until a signal asks to stop or the GPIO fails.
    func run() -> Ending {
        let signals = descriptors + (descriptorCount - 1)
        while true {
            let timeout = controller.nextDeadline.map { Swift.max(0, $0.nanoseconds &- clock.now().nanoseconds) }
            let ready = Syscalls.wait(descriptors, count: descriptorCount, timeout: timeout)
            if ready < 0 {
                let code = Syscalls.errno
                if code == EINTR { continue }
                return .waitFailed(errno: code)
            }
            if signals.pointee.revents != 0 {
                let signal = Syscalls.readSignal(signals.pointee.fd)
                if signal > 0 { return .signal(signal) }
            }
            do {
                try controller.process(now: clock.now())
            } catch {
                return .gpioError(error)
            }
            status.publish(lostEdges: controller.lostEdges, events: controller.statistics.dispatched)
        }
    }
}

/// What the event loop tells the reporting thread without sharing the controller with it.
final class RunStatus: Sendable {
    private let lost = Atomic<Int>(0)
    private let dispatched = Atomic<Int>(0)

    func publish(lostEdges: Int, events: Int) {
        lost.store(lostEdges, ordering: .relaxed)
        dispatched.store(events, ordering: .relaxed)
    }

    var lostEdges: Int { lost.load(ordering: .relaxed) }
    var events: Int { dispatched.load(ordering: .relaxed) }
}
