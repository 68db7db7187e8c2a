import CGpiod
import ControllerFSM

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Turns a failed libgpiod call's `errno` into the `GPIOError` whose message says what to do.
enum GpiodFailure {
    static func opening(path: String, chipName: String, errno code: Int32) -> GPIOError {
        switch code {
        case EACCES, EPERM:
            return .permissionDenied(chip: chipName, path: path)
        case ENOENT, ENODEV, ENXIO, ENOTTY:
            // Not there, or not a GPIO chip: say what is there instead.
            return .chipNotFound(lookedFor: "path \(path)", available: ((try? GpiodChip.available()) ?? []).compactMap(\.info))
        default:
            return .requestFailed(chip: chipName, errno: code)
        }
    }

    static func requesting(chip: GPIOChipInfo, library: GpiodLibrary, errno code: Int32, biased: Bool) -> GPIOError {
        let kernel = KernelRelease.running
        let needs = library.kernelNeeded
        if (code == ENOTTY || code == EINVAL) && kernel.isOlder(than: needs.major, needs.minor) {
            let older = GpiodLibrary.Generation.v1
            return .unsupportedByKernel(
                chip: chip.name, feature: "serve \(library) (its GPIO character device interface)",
                kernel: kernel.text, needs: "\(needs.major).\(needs.minor)",
                instead: "Install libgpiod 1.6 (apt install \(older.package)), which debounces in software, and start "
                    + "with \(GpiodLibrary.generationVariable)=\(older.rawValue); or update the kernel.")
        }
        let bias = KernelFeature.bias
        if biased && code == EINVAL && kernel.isOlder(than: bias.major, bias.minor) {
            return .unsupportedByKernel(
                chip: chip.name, feature: "set a line's bias (pull-up or pull-down)",
                kernel: kernel.text, needs: "\(bias.major).\(bias.minor)",
                instead: "Fit external pull resistors and set bias = \"as-is\" in the board file, or update the kernel.")
        }
        if code == EACCES || code == EPERM { return .permissionDenied(chip: chip.name, path: chip.path) }
        if code == ENODEV || code == ENXIO { return .chipGone(chip: chip.name, path: chip.path) }
        return .requestFailed(chip: chip.name, errno: code)
    }

    static func reading(chip: GPIOChipInfo, line: GPIOLineID?, errno code: Int32) -> GPIOError {
        if code == ENODEV || code == ENXIO { return .chipGone(chip: chip.name, path: chip.path) }
        return .readFailed(chip: chip.name, line: line, errno: code)
    }

    static func writing(chip: GPIOChipInfo, line: GPIOLineID, errno code: Int32) -> GPIOError {
        if code == ENODEV || code == ENXIO { return .chipGone(chip: chip.name, path: chip.path) }
        return .writeFailed(chip: chip.name, line: line, errno: code)
    }
}
