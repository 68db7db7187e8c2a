import CGpiod
import ControllerFSM

/// The libgpiod this process drives its chips through, opened at run time.
///
/// One binary serves both generations: libgpiod 2.x (`libgpiod.so.3`, Debian 13 "trixie" and
/// newer) is preferred, libgpiod 1.6 (`libgpiod.so.2`, Debian 12 and Raspberry Pi OS bookworm)
/// is taken when 2.x is not installed. Every function the backend calls is looked up and checked
/// when the library is opened, so a wrong or partial library is refused at start-up with the name
/// of what it lacks, never met later on the event path. ``generationVariable`` forces one
/// generation (the hardware-in-the-loop tests run one binary on each).
///
/// Nothing else needs it: the simulated backend and every command that does not touch a real
/// chip run on a machine without libgpiod.
public struct GpiodLibrary: Sendable, CustomStringConvertible {
    /// A generation of libgpiod's API, with the file and the Debian package that carry it.
    public enum Generation: Int, Sendable, CaseIterable {
        /// libgpiod 1.6: the kernel's v1 GPIO interface; edges are debounced in software.
        case v1 = 1
        /// libgpiod 2.x: the kernel's v2 interface, which debounces edges itself.
        case v2 = 2

        /// The shared library's file name (its soname).
        public var file: String { self == .v1 ? "libgpiod.so.2" : "libgpiod.so.3" }
        /// The Debian package that installs ``file``.
        public var package: String { self == .v1 ? "libgpiod2" : "libgpiod3" }
        /// The systems that ship ``package``.
        var systems: String { self == .v1 ? "Debian 12 or Raspberry Pi OS bookworm" : "Debian 13 (trixie) or newer" }
        /// Newest first: the order the library is looked for in.
        static let preferred: [Generation] = [.v2, .v1]
    }

    /// The environment variable that forces one generation: `1` (libgpiod 1.6) or `2` (2.x).
    public static let generationVariable = "CONTROLLERFSM_LIBGPIOD"

    /// The opened library: it is never closed, so the handle stays valid for the process.
    nonisolated(unsafe) let handle: OpaquePointer
    public let generation: Generation
    /// The file it was opened from, e.g. `libgpiod.so.3`.
    public let file: String
    /// The library's own version, e.g. `1.6.3` or `2.3`.
    public let version: String

    /// `libgpiod 2.3 (libgpiod.so.3)`.
    public var description: String { "libgpiod \(version) (\(file))" }

    /// Whether the kernel debounces input edges (libgpiod 2) or the caller must (1.6).
    public var kernelDebounces: Bool { cgpiod_library_kernel_debounces(handle) }

    /// The oldest Linux release this generation's GPIO interface exists on.
    var kernelNeeded: (major: Int, minor: Int) {
        let needed = Int(cgpiod_library_kernel_needed(handle))
        return (needed / 100, needed % 100)
    }

    /// The library this process uses, opened on first use (and the reason it cannot be, every
    /// time it is asked for).
    /// - Throws: `GPIOError/libraryUnavailable(library:reason:instead:)` naming the packages to
    ///   install, or the variable's value when ``generationVariable`` is not `1` or `2`.
    public static func current() throws(GPIOError) -> GpiodLibrary {
        try loaded.get()
    }

    private static let loaded = load(forcing: Syscalls.environment(generationVariable))

    /// Opens the first generation of `order` whose file opens and binds, or only the one
    /// `forcing` names (`"1"` or `"2"`; `nil` or empty for any). `files` replaces the file
    /// names looked for (tests).
    static func load(forcing: String?, files: [Generation: String] = [:]) -> Result<GpiodLibrary, GPIOError> {
        let candidates: [Generation]
        switch forcing {
        case nil, "": candidates = Generation.preferred
        case "1": candidates = [.v1]
        case "2": candidates = [.v2]
        case let value?:
            return .failure(.libraryUnavailable(
                library: "libgpiod", reason: "\(generationVariable) is \"\(value)\"",
                instead: "Set it to 1 (libgpiod 1.6) or 2 (libgpiod 2.x), or unset it to use the newest installed."))
        }
        var reasons: [String] = []
        for generation in candidates {
            let file = files[generation] ?? generation.file
            var reason = [CChar](repeating: 0, count: Int(CGPIOD_REASON_SIZE))
            if let handle = cgpiod_library_open(file, Int32(generation.rawValue), &reason, reason.count) {
                let version = String(cString: cgpiod_library_version(handle))
                return .success(GpiodLibrary(handle: handle, generation: generation, file: file, version: version))
            }
            reasons.append(String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        let install = candidates.map { "`sudo apt install \($0.package)` on \($0.systems)" }.joined(separator: ", ")
        let forced = candidates.count == 1 ? " (\(generationVariable) asks for this one)" : ""
        return .failure(.libraryUnavailable(
            library: "libgpiod", reason: reasons.joined(separator: "; ") + forced,
            instead: "Install it: \(install). The simulated boards and `simulate` need no libgpiod."))
    }
}
