import CGpiod
import ControllerFSM

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A GPIO chip through libgpiod: the kernel's character device (`/dev/gpiochipN`).
///
/// The same code drives libgpiod 1.6 and 2.x: ``GpiodLibrary`` finds the one installed when the
/// first chip is opened. Lines are requested with the settings the port describes; inputs report both
/// edges with the kernel's monotonic timestamps, outputs are driven to their initial value by
/// the request itself.
///
/// Open one with ``open(_:)`` (by label, name or path, as a board file names it). The chip stays
/// open while it or any of its requests lives (libgpiod 1.6's lines belong to their chip).
public final class GpiodChip: GPIOChip {
    public let info: GPIOChipInfo
    /// The library the chip was opened through.
    public let library: GpiodLibrary
    let handle: OpaquePointer

    /// Opens the chip at `path` (e.g. `/dev/gpiochip0`).
    /// - Throws: `GPIOError/permissionDenied(chip:path:)` when this user may not open it,
    ///   `GPIOError/chipNotFound(lookedFor:available:)` when there is no such chip,
    ///   `GPIOError/libraryUnavailable(library:reason:instead:)` without libgpiod.
    public init(path: String) throws(GPIOError) {
        let name = GpiodChip.deviceName(path)
        library = try GpiodLibrary.current()
        guard let handle = cgpiod_chip_open(library.handle, path) else {
            throw GpiodFailure.opening(path: path, chipName: name, errno: Syscalls.errno)
        }
        var raw = cgpiod_chip_info()
        guard cgpiod_chip_get_info(handle, &raw) == 0 else {
            let code = Syscalls.errno
            cgpiod_chip_close(handle)
            throw GpiodFailure.opening(path: path, chipName: name, errno: code)
        }
        self.handle = handle
        info = GPIOChipInfo(
            name: Syscalls.string(raw.name), label: Syscalls.string(raw.label), path: path,
            lineCount: Int(raw.num_lines))
    }

    deinit {
        cgpiod_chip_close(handle)
    }

    public func lineInfo(at offset: GPIOLineOffset) throws(GPIOError) -> GPIOLineInfo {
        guard Int(offset.rawValue) < info.lineCount else {
            throw .offsetOutOfRange(chip: info.name, offset: offset, lineCount: info.lineCount)
        }
        var raw = cgpiod_line_info()
        guard cgpiod_chip_get_line_info(handle, offset.rawValue, &raw) == 0 else {
            throw GpiodFailure.reading(chip: info, line: GPIOLineID(offset: offset), errno: Syscalls.errno)
        }
        let consumer = Syscalls.string(raw.consumer)
        return GPIOLineInfo(
            offset: offset, name: Syscalls.string(raw.name),
            consumer: raw.used ? (consumer.isEmpty ? "kernel" : consumer) : nil,
            direction: raw.direction == CGPIOD_DIRECTION_OUTPUT ? .output : .input,
            activeLow: raw.active_low, bias: LineBias(raw.bias))
    }

    /// Every line's information, by offset.
    public func allLineInfo() throws(GPIOError) -> [GPIOLineInfo] {
        var lines: [GPIOLineInfo] = []
        lines.reserveCapacity(info.lineCount)
        for offset in 0..<info.lineCount {
            lines.append(try lineInfo(at: GPIOLineOffset(UInt32(offset))))
        }
        return lines
    }

    public func offset(ofLineNamed name: String) throws(GPIOError) -> GPIOLineOffset {
        let lines = try allLineInfo()
        if let line = lines.first(where: { $0.name == name }) { return line.offset }
        throw .lineNotFound(chip: info.name, name: name, available: lines.map(\.name))
    }

    /// Takes `lines` as inputs with both edges. On libgpiod 2 the kernel debounces them
    /// (``GpiodInputRequest/edgesAreDebounced`` is `true`); libgpiod 1.6 cannot ask it to, so
    /// the caller filters raw edges with `EdgeDebouncer`.
    public func requestInputs(_ lines: [InputLineSettings], consumer: String) throws(GPIOError) -> GpiodInputRequest {
        try validate(lines.map(\.offset))
        for line in lines {
            guard let problem = InputLineSettings.debounceProblem(line.debounce) else { continue }
            throw .invalidRequest(chip: info.name, line: GPIOLineID(offset: line.offset), reason: problem)
        }
        let raw = lines.map { line in
            cgpiod_input_line(
                offset: line.offset.rawValue, active_low: line.activeLow, bias: line.bias.cgpiod,
                debounce_us: UInt(clamping: line.debounce.nanosecondCount / 1000))
        }
        var failedIndex: Int32 = -1
        let request = consumer.withCString { name in
            raw.withUnsafeBufferPointer { cgpiod_request_inputs(handle, $0.baseAddress, $0.count, name, &failedIndex) }
        }
        guard let request else {
            throw requestFailure(errno: Syscalls.errno, offsets: lines.map(\.offset), failedIndex: failedIndex,
                                 biased: lines.contains { $0.bias != .asIs })
        }
        return GpiodInputRequest(chip: self, request: request, offsets: lines.map(\.offset), consumer: consumer)
    }

    /// Takes `lines` as outputs; the kernel drives each to its initial value as part of the
    /// request, so the line never shows another level.
    public func requestOutputs(_ lines: [OutputLineSettings], consumer: String) throws(GPIOError) -> GpiodOutputRequest {
        try validate(lines.map(\.offset))
        let raw = lines.map { line in
            cgpiod_output_line(offset: line.offset.rawValue, active_low: line.activeLow, initial_value: line.initialValue)
        }
        var failedIndex: Int32 = -1
        let request = consumer.withCString { name in
            raw.withUnsafeBufferPointer { cgpiod_request_outputs(handle, $0.baseAddress, $0.count, name, &failedIndex) }
        }
        guard let request else {
            throw requestFailure(errno: Syscalls.errno, offsets: lines.map(\.offset), failedIndex: failedIndex, biased: false)
        }
        return GpiodOutputRequest(chip: self, request: request, offsets: lines.map(\.offset), consumer: consumer)
    }

    // MARK: Internals

    /// The checks the kernel would make, made first so their errors name the line.
    private func validate(_ offsets: [GPIOLineOffset]) throws(GPIOError) {
        if offsets.isEmpty { throw .invalidRequest(chip: info.name, line: nil, reason: "no lines were given") }
        if offsets.count > Int(CGPIOD_MAX_LINES) {
            throw .invalidRequest(
                chip: info.name, line: nil,
                reason: "\(offsets.count) lines in one request; libgpiod takes at most \(CGPIOD_MAX_LINES)")
        }
        for (position, offset) in offsets.enumerated() {
            guard Int(offset.rawValue) < info.lineCount else {
                throw .offsetOutOfRange(chip: info.name, offset: offset, lineCount: info.lineCount)
            }
            if offsets[..<position].contains(offset) {
                throw .invalidRequest(chip: info.name, line: lineID(offset), reason: "the line is listed twice")
            }
        }
    }

    private func requestFailure(errno code: Int32, offsets: [GPIOLineOffset], failedIndex: Int32, biased: Bool) -> GPIOError {
        let failed = failedIndex >= 0 && Int(failedIndex) < offsets.count ? offsets[Int(failedIndex)] : nil
        if code == EBUSY {
            // Name the holder: the failed line if libgpiod said which, else the first held one.
            for offset in [failed].compactMap({ $0 }) + offsets {
                if let held = try? lineInfo(at: offset), let consumer = held.consumer {
                    return .lineBusy(chip: info.name, line: held.id, consumer: consumer)
                }
            }
            return .lineBusy(chip: info.name, line: lineID(failed ?? offsets[0]), consumer: nil)
        }
        return GpiodFailure.requesting(chip: info, library: library, errno: code, biased: biased)
    }

    func lineID(_ offset: GPIOLineOffset) -> GPIOLineID {
        let name = (try? lineInfo(at: offset))?.name ?? ""
        return GPIOLineID(offset: offset, name: name.isEmpty ? nil : name)
    }

    /// `gpiochip0` for `/dev/gpiochip0`.
    static func deviceName(_ path: String) -> String {
        String(path.split(separator: "/").last ?? Substring(path))
    }
}

extension LineBias {
    var cgpiod: cgpiod_bias {
        switch self {
        case .asIs: CGPIOD_BIAS_AS_IS
        case .disabled: CGPIOD_BIAS_DISABLED
        case .pullUp: CGPIOD_BIAS_PULL_UP
        case .pullDown: CGPIOD_BIAS_PULL_DOWN
        }
    }

    init?(_ bias: cgpiod_bias) {
        switch bias {
        case CGPIOD_BIAS_AS_IS: self = .asIs
        case CGPIOD_BIAS_DISABLED: self = .disabled
        case CGPIOD_BIAS_PULL_UP: self = .pullUp
        case CGPIOD_BIAS_PULL_DOWN: self = .pullDown
        default: return nil
        }
    }
}
