/// What the names in a board file may be. They leave the file for places that take them as
/// text of their own — a log line, the recording's header comment, `ctl status` on a
/// terminal, the kernel's fixed-size fields — so each is checked where it enters: printable,
/// and no longer than where it goes keeps.
enum BoardName {
    /// Where a name goes, which sets how long it may be.
    enum Kind {
        /// `board.name`: a label for people, in logs and the status.
        case label
        /// A GPIO line name, a chip's label or kernel name, the consumer: the kernel keeps
        /// them in fixed 32-byte fields with their NUL, so a longer consumer would be cut short
        /// without a word and a longer line or chip name could never match.
        case kernel
        /// A chip's device path.
        case path
    }

    /// A label longer than this is not a label (it is shown on one line with the state).
    static let maxLabelCharacters = 64
    /// GPIO_MAX_NAME_SIZE (linux/gpio.h) less its NUL.
    static let maxKernelNameBytes = 31
    /// PATH_MAX less its NUL.
    static let maxPathBytes = 4095

    /// Why `name` may not stand, or nil when it may.
    static func problem(with name: String, as kind: Kind) -> (reason: String, hint: String)? {
        if let invisible = name.unicodeScalars.first(where: \.isInvisible) {
            let shown = String(invisible).visible
            return ("\"\(name.bounded)\" holds \(shown), a control or invisible character",
                    "names are printable text; write the name without it")
        }
        switch kind {
        case .label where name.count > maxLabelCharacters:
            return ("\"\(name.bounded)\" is \(name.count) characters long", "a board name is at most \(maxLabelCharacters) characters")
        case .kernel where name.utf8.count > maxKernelNameBytes:
            return ("\"\(name.bounded)\" is \(name.utf8.count) bytes long",
                    "the kernel keeps at most \(maxKernelNameBytes) bytes of a GPIO name")
        case .path where name.utf8.count > maxPathBytes:
            return ("the path is \(name.utf8.count) bytes long", "a path is at most \(maxPathBytes) bytes")
        default:
            return nil
        }
    }
}

extension BoardTable {
    /// A non-empty string naming something (see ``BoardName``); `kind` nil decides by the value:
    /// a chip given as a path (`/dev/gpiochip0`) is a path, otherwise a kernel name.
    func name(_ key: String, example: String, kind: BoardName.Kind?) throws(BoardFileError) -> String? {
        guard let name = try string(key, example: example) else { return nil }
        try checkName(name, at: key, kind: kind ?? (name.hasPrefix("/") ? .path : .kernel))
        return name
    }

    func checkName(_ name: String, at key: String, kind: BoardName.Kind) throws(BoardFileError) {
        if let problem = BoardName.problem(with: name, as: kind) {
            throw error(at: key, problem.reason, hint: problem.hint)
        }
    }
}
