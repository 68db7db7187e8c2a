#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Everything that can go wrong at the GPIO port.
///
/// Each case carries what its message needs to name the chip and the line, and the message
/// (``description``) says what to do about it: a daemon on a board in the field is debugged
/// from its log.
///
/// The port knows no program: where a message would say how to list the chips or lines, it names
/// `gpiodetect` and `gpioinfo`, unless the program that met the error has named itself
/// (``naming(program:)``), as the daemon does, whose own `lines` command says more.
public enum GPIOError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No chip matched. `lookedFor` describes the match (e.g. `label "pinctrl-rp1"`);
    /// `available` lists the chips that were there; `program` is the program whose `lines`
    /// command lists them (``naming(program:)``).
    case chipNotFound(lookedFor: String, available: [GPIOChipInfo], program: String? = nil)
    /// The chip went away (unplugged, driver unbound); nothing on it works any more.
    case chipGone(chip: String, path: String)
    /// The chip has no line with that name; `available` lists the names it has; `program` as
    /// for ``chipNotFound(lookedFor:available:program:)``.
    case lineNotFound(chip: String, name: String, available: [String], program: String? = nil)
    /// The offset is past the chip's last line.
    case offsetOutOfRange(chip: String, offset: GPIOLineOffset, lineCount: Int)
    /// Someone else holds the line; `consumer` is their name when the chip reports it.
    case lineBusy(chip: String, line: GPIOLineID, consumer: String?)
    /// The request itself is wrong (no lines, a line twice, a negative debounce, an index
    /// outside the request).
    case invalidRequest(chip: String, line: GPIOLineID?, reason: String)
    /// The request was released (by its owner or by a restart) and cannot be used any more.
    case requestReleased(chip: String, consumer: String)
    /// This user may not open the chip's device.
    case permissionDenied(chip: String, path: String)
    /// The running kernel lacks something the request needs; `instead` says what to do.
    case unsupportedByKernel(chip: String, feature: String, kernel: String, needs: String, instead: String)
    /// The kernel refused the request for another reason (`errno`), e.g. permissions.
    case requestFailed(chip: String, errno: Int32)
    /// Reading a value, or the request's edge events when `line` is `nil`, failed.
    case readFailed(chip: String, line: GPIOLineID?, errno: Int32)
    /// Driving an output failed; the line's level is unknown.
    case writeFailed(chip: String, line: GPIOLineID, errno: Int32)
    /// The library a backend drives the chips through (`library`) could not be loaded: `reason`
    /// says what was tried and why it failed, `instead` what to install or set.
    case libraryUnavailable(library: String, reason: String, instead: String)

    /// The chip the error is about, when it is about one chip.
    public var chip: String? {
        switch self {
        case .chipNotFound, .libraryUnavailable: nil
        case .permissionDenied(let chip, _), .unsupportedByKernel(let chip, _, _, _, _):
            chip
        case .chipGone(let chip, _), .lineNotFound(let chip, _, _, _), .offsetOutOfRange(let chip, _, _),
            .lineBusy(let chip, _, _), .invalidRequest(let chip, _, _),
            .requestReleased(let chip, _), .requestFailed(let chip, _), .readFailed(let chip, _, _),
            .writeFailed(let chip, _, _):
            chip
        }
    }

    /// The line the error is about, when it is about one known line.
    public var line: GPIOLineID? {
        switch self {
        case .lineBusy(_, let line, _), .writeFailed(_, let line, _): line
        case .invalidRequest(_, let line, _), .readFailed(_, let line, _): line
        default: nil
        }
    }

    /// The error as `program` (`turnstiled`) reports it: a message that says how to list the
    /// chips or lines names its `lines` command. Other errors are returned as they are.
    public func naming(program: String) -> GPIOError {
        switch self {
        case .chipNotFound(let lookedFor, let available, _):
            .chipNotFound(lookedFor: lookedFor, available: available, program: program)
        case .lineNotFound(let chip, let name, let available, _):
            .lineNotFound(chip: chip, name: name, available: available, program: program)
        default:
            self
        }
    }

    public var description: String {
        switch self {
        case .chipNotFound(let lookedFor, let available, let program):
            if available.isEmpty {
                return "GPIO chip not found: looked for \(lookedFor), but this machine has no GPIO chips. "
                    + "Check that /dev/gpiochip* exists and is readable by this user, and run `\(program.map { "\($0) lines" } ?? "gpiodetect")`."
            }
            let list = available.map(\.description).joined(separator: ", ")
            let lister = program.map { "`\($0) lines` (or `gpiodetect`)" } ?? "`gpiodetect`"
            return "GPIO chip not found: looked for \(lookedFor) among \(list). "
                + "Run \(lister) to list this machine's chips and fix the board file's chip setting."
        case .chipGone(let chip, let path):
            return "GPIO chip \(chip) (\(path)) has gone away: the device was removed or its driver "
                + "unbound. Check the hardware and the kernel log (`dmesg`), then restart."
        case .lineNotFound(let chip, let name, let available, let program):
            let names = available.filter { !$0.isEmpty }
            let list = names.isEmpty
                ? "its lines have no names: give the line by offset"
                : "its lines are named " + names.map { "\"\($0)\"" }.joined(separator: ", ")
            return "GPIO chip \(chip) has no line named \"\(name)\"; \(list). "
                + "Fix the board file's line, or give it by offset (`\(program.map { "\($0) lines --chip" } ?? "gpioinfo") \(chip)` shows them)."
        case .offsetOutOfRange(let chip, let offset, let lineCount):
            return "line \(offset) is out of range on GPIO chip \(chip), which has \(lineCount) lines "
                + "(0 to \(lineCount - 1)). Run `gpioinfo \(chip)` to see them."
        case .lineBusy(let chip, let line, let consumer):
            let holder = consumer.map { "consumer \"\($0)\"" } ?? "another consumer"
            return "\(line) of GPIO chip \(chip) is busy: \(holder) holds it. Stop that program or "
                + "choose another line; `gpioinfo \(chip)` shows who holds each line."
        case .invalidRequest(let chip, let line, let reason):
            let subject = line.map { "\($0) of GPIO chip \(chip)" } ?? "GPIO chip \(chip)"
            return "invalid request for \(subject): \(reason)."
        case .requestReleased(let chip, let consumer):
            return "the line request of consumer \"\(consumer)\" on GPIO chip \(chip) was released; "
                + "request the lines again before using them."
        case .permissionDenied(let chip, let path):
            return "permission denied opening GPIO chip \(chip) (\(path)). Run as root, or give this user "
                + "access: add it to the group that owns \(path) (`ls -l \(path)`; often `gpio`: "
                + "`sudo usermod -aG gpio $USER`, then log in again), or install a udev rule such as "
                + "SUBSYSTEM==\"gpio\", KERNEL==\"gpiochip*\", GROUP=\"gpio\", MODE=\"0660\"."
        case .unsupportedByKernel(let chip, let feature, let kernel, let needs, let instead):
            return "GPIO chip \(chip): this kernel (\(kernel)) cannot \(feature); that needs Linux \(needs) "
                + "or later. \(instead)"
        case .requestFailed(let chip, let errno):
            return "requesting lines on GPIO chip \(chip) failed: \(Self.describe(errno: errno)).\(Self.hint(errno: errno))"
        case .readFailed(let chip, let line, let errno):
            let what = line.map { "reading \($0)" } ?? "reading edge events"
            return "\(what) of GPIO chip \(chip) failed: \(Self.describe(errno: errno)).\(Self.hint(errno: errno))"
        case .writeFailed(let chip, let line, let errno):
            return "writing \(line) of GPIO chip \(chip) failed: \(Self.describe(errno: errno)); "
                + "the line's level is unknown.\(Self.hint(errno: errno))"
        case .libraryUnavailable(let library, let reason, let instead):
            return "\(library) could not be loaded: \(reason). \(instead)"
        }
    }

    /// `Input/output error (errno 5)`.
    static func describe(errno: Int32) -> String {
        "\(SystemErrno.describe(errno)) (errno \(errno))"
    }

    /// What to do about the common errnos, with a leading space; empty when there is no advice.
    static func hint(errno: Int32) -> String {
        switch errno {
        case EACCES, EPERM:
            " Run as root or as a member of the group owning the chip's device (often `gpio`)."
        case EBUSY:
            " Another consumer holds a line; `gpioinfo` shows which."
        case ENODEV, ENXIO:
            " The chip has gone away; check the hardware and `dmesg`."
        case EIO:
            " Check the wiring and the kernel log (`dmesg`)."
        default:
            ""
        }
    }
}
