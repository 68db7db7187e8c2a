import CGpiod
import ControllerFSM

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension GpiodChip {
    /// Where the kernel puts GPIO character devices.
    public static let deviceDirectory = "/dev"

    /// One `/dev/gpiochip*` device: what it is, or why it could not be opened.
    public struct Discovered: Sendable {
        public var path: String
        public var info: GPIOChipInfo?
        public var error: GPIOError?
    }

    /// Every GPIO chip device on this machine, in number order, as `gpiodetect` lists them.
    /// - Throws: `GPIOError/libraryUnavailable(library:reason:instead:)` without libgpiod.
    public static func available() throws(GPIOError) -> [Discovered] {
        let library = try GpiodLibrary.current()
        let names = (Syscalls.directoryEntries(deviceDirectory) ?? [])
            .filter { $0.hasPrefix("gpiochip") }
            .sorted { (Int($0.dropFirst(8)) ?? .max, $0) < (Int($1.dropFirst(8)) ?? .max, $1) }
        return names.map { name in
            let path = "\(deviceDirectory)/\(name)"
            guard let handle = cgpiod_chip_open(library.handle, path) else {
                let code = Syscalls.errno
                let error: GPIOError = code == EACCES || code == EPERM
                    ? .permissionDenied(chip: name, path: path) : .requestFailed(chip: name, errno: code)
                return Discovered(path: path, info: nil, error: error)
            }
            defer { cgpiod_chip_close(handle) }
            var raw = cgpiod_chip_info()
            guard cgpiod_chip_get_info(handle, &raw) == 0 else {
                return Discovered(path: path, info: nil, error: .requestFailed(chip: name, errno: Syscalls.errno))
            }
            let info = GPIOChipInfo(
                name: Syscalls.string(raw.name), label: Syscalls.string(raw.label), path: path,
                lineCount: Int(raw.num_lines))
            return Discovered(path: path, info: info, error: nil)
        }
    }

    /// Opens the chip a board names: by path directly, by name or label among ``available()``.
    /// - Throws: `GPIOError/chipNotFound(lookedFor:available:)` listing every chip there is;
    ///   `GPIOError/permissionDenied(chip:path:)` when the only chips that could match are
    ///   ones this user may not open.
    public static func open(_ selector: GPIOChipSelector) throws(GPIOError) -> GpiodChip {
        if case .path(let path) = selector { return try GpiodChip(path: path) }
        let chips = try available()
        if let found = chips.first(where: { $0.info.map(selector.matches) ?? false }) {
            return try GpiodChip(path: found.path)
        }
        // A chip this user cannot open may be the one looked for: say so rather than "not found".
        for chip in chips {
            guard case .permissionDenied = chip.error, let error = chip.error else { continue }
            if case .name(let name) = selector, name != deviceName(chip.path) { continue }
            throw error
        }
        throw .chipNotFound(lookedFor: selector.description, available: chips.compactMap(\.info))
    }
}
