import CGpiod
import ControllerFSM

/// Output lines held through libgpiod. Each was driven to its initial value by the request.
public final class GpiodOutputRequest: GPIOOutputRequest {
    public let chip: GpiodChip
    public let offsets: [GPIOLineOffset]
    public let consumer: String
    private var request: OpaquePointer?

    init(chip: GpiodChip, request: OpaquePointer, offsets: [GPIOLineOffset], consumer: String) {
        self.chip = chip
        self.request = request
        self.offsets = offsets
        self.consumer = consumer
    }

    deinit {
        release()
    }

    public func write(_ value: Bool, at index: Int) throws(GPIOError) {
        guard let request else { throw .requestReleased(chip: chip.info.name, consumer: consumer) }
        guard offsets.indices.contains(index) else {
            throw .invalidRequest(
                chip: chip.info.name, line: nil,
                reason: "line index \(index) is outside the request's \(offsets.count) lines")
        }
        guard cgpiod_request_set_value(request, UInt32(index), value) == 0 else {
            throw GpiodFailure.writing(chip: chip.info, line: GPIOLineID(offset: offsets[index]), errno: Syscalls.errno)
        }
    }

    /// Gives the lines back. The kernel then stops driving them: each falls to whatever its
    /// pull resistor (or the circuit) sets, so wire the relay so that this level is the one the
    /// board's `fail_mode` wants.
    public func release() {
        guard let request else { return }
        cgpiod_request_release(request)
        self.request = nil
    }
}
