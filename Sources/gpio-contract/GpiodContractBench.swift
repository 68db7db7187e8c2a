import ControllerFSM
import ControllerFSMGpiod
import GPIOPortContract

#if canImport(Glibc)
import Glibc
#endif

/// The kernel's gpio-sim chip as a contract bench: inputs are driven through each line's
/// `pull` attribute in sysfs, outputs read from its `value`, time is real.
struct GpiodContractBench: ContractBench {
    let chip: GpiodChip
    /// `/sys/devices/platform/gpio-sim.N/gpiochipM`, found from the chip's name.
    let sysfs: String

    init(chip: GpiodChip) throws {
        self.chip = chip
        let platform = "/sys/devices/platform"
        guard let directory = opendir(platform) else { throw ContractFailure("cannot read \(platform)") }
        defer { closedir(directory) }
        var found: String?
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            let candidate = "\(platform)/\(name)/\(chip.info.name)"
            if name.hasPrefix("gpio-sim"), access(candidate, F_OK) == 0 { found = candidate }
        }
        guard let found else { throw ContractFailure("\(chip.info.name) is not a gpio-sim chip (nothing under \(platform)/gpio-sim.*)") }
        sysfs = found
    }

    func setWire(_ offset: GPIOLineOffset, high: Bool) {
        let path = "\(sysfs)/sim_gpio\(offset.rawValue)/pull"
        let descriptor = open(path, O_WRONLY)
        guard descriptor >= 0 else { fatalError("cannot open \(path): \(SystemErrno.describe(SystemErrno.current))") }
        defer { close(descriptor) }
        let text = high ? "pull-up" : "pull-down"
        _ = text.withCString { write(descriptor, $0, strlen($0)) }
    }

    func wire(_ offset: GPIOLineOffset) -> Bool {
        let path = "\(sysfs)/sim_gpio\(offset.rawValue)/value"
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { fatalError("cannot open \(path): \(SystemErrno.describe(SystemErrno.current))") }
        defer { close(descriptor) }
        var byte: UInt8 = 0
        _ = read(descriptor, &byte, 1)
        return byte == UInt8(ascii: "1")
    }

    func pass(_ duration: Duration) {
        MonotonicClock.sleep(nanoseconds: duration.nanosecondCount)
    }
}
