/// An application's board-file section (`[turnstile]`, `[barrier]`): its typed keys, their
/// defaults (in `defaults`) and limits, and the relations between them the board must keep.
public struct SettingsDeclaration<App: ControllerApplication>: Sendable {
    /// The section's name in a board file.
    public let section: String
    /// Every key's value when the board does not give it.
    public let defaults: App.Settings
    public let keys: [SettingKey<App>]
    /// Smallest values that depend on other values (a relock timeout must outlast the push
    /// line's debounce): `check`, `run`, `simulate` and a reload refuse a board below them.
    public let relations: [TimingRelation<App>]
    /// Relations a simulated board must keep besides (the turnstile: its jam timeout must
    /// outlast a simulated push): `simulate`, `check` and a simulated `run` refuse a board below
    /// them.
    public let simulatedRelations: [TimingRelation<App>]

    public init(section: String, defaults: App.Settings, keys: [SettingKey<App>], relations: [TimingRelation<App>] = [],
                simulatedRelations: [TimingRelation<App>] = []) {
        self.section = section
        self.defaults = defaults
        self.keys = keys
        self.relations = relations
        self.simulatedRelations = simulatedRelations
    }

    /// The key called `name`.
    public func key(named name: String) -> SettingKey<App>? { keys.first { $0.name == name } }

    /// The duration keys: what a reload may change and a recording's `set KEY SECONDS` carries.
    public var durationKeys: [SettingKey<App>] { keys.filter(\.isDuration) }
}

/// One key of an application's settings section (`[turnstile]`, `[barrier]`).
public typealias SettingKey<App: ControllerApplication> = SectionKey<App.Settings>

/// One typed key of a board-file section whose values are kept in `Values`: an application's
/// settings (``SettingKey``) or its simulated plant's `[sim]` keys (``SimulatedPlant``).
public struct SectionKey<Values>: Sendable {
    public enum Kind: Sendable {
        /// A positive duration, at most a day (`TimeLimits.boardTiming`), written `"5s"`.
        case duration(SendableWritableKeyPath<Values, Duration>)
        /// One of a fixed set of words (``SectionKey/choices``).
        case choice(read: @Sendable (Values) -> String, write: @Sendable (inout Values, String) -> Void)
        /// A whole number within ``SectionKey/range`` (its floor and its ceiling), written `3`.
        case integer(SendableWritableKeyPath<Values, Int>)
    }
    /// The key as the board file writes it (`relock_timeout`).
    public let name: String
    public let kind: Kind
    /// The words a choice accepts; empty for a duration. Kept beside `kind`, not in its payload:
    /// Swift packs an enum's payload pointers with tag bits, where LeakSanitizer cannot see
    /// them, and reports the array a static declaration holds as leaked.
    public let choices: [String]
    /// The values an integer accepts, its floor first; `nil` for a duration or a choice.
    public let range: ClosedRange<Int>?
    public let summary: String

    init(name: String, kind: Kind, choices: [String], range: ClosedRange<Int>? = nil, summary: String) {
        self.name = name
        self.kind = kind
        self.choices = choices
        self.range = range
        self.summary = summary
    }

    /// An integer setting, refused outside `range` (the board cannot go below its floor or above
    /// its ceiling).
    public static func integer(_ name: String, _ keyPath: WritableKeyPath<Values, Int>, in range: ClosedRange<Int>, summary: String = "") -> Self {
        Self(name: name, kind: .integer(SendableWritableKeyPath(keyPath)), choices: [], range: range, summary: summary)
    }

    /// A duration setting.
    public static func duration(_ name: String, _ keyPath: WritableKeyPath<Values, Duration>, summary: String = "") -> Self {
        Self(name: name, kind: .duration(SendableWritableKeyPath(keyPath)), choices: [], summary: summary)
    }

    /// A setting that is one of the cases of `Choice`, written as its raw value.
    public static func choice<Choice: RawRepresentable<String> & CaseIterable & Sendable>(
        _ name: String, _ keyPath: WritableKeyPath<Values, Choice>, summary: String = ""
    ) -> Self {
        choice(name, keyPath, cases: Array(Choice.allCases), words: \.rawValue, summary: summary)
    }

    /// A setting that is one of `cases`, each written as `words` gives it (a `Bool` as
    /// `"down"`/`"up"`).
    public static func choice<Choice: Sendable>(
        _ name: String, _ keyPath: WritableKeyPath<Values, Choice>, cases: [Choice],
        words: @escaping @Sendable (Choice) -> String, summary: String = ""
    ) -> Self {
        let path = SendableWritableKeyPath(keyPath)
        let written = cases.map(words)
        return Self(
            name: name,
            kind: .choice(
                read: { words($0[keyPath: path.keyPath]) },
                write: { settings, word in
                    if let index = written.firstIndex(of: word) { settings[keyPath: path.keyPath] = cases[index] }
                }),
            choices: written,
            summary: summary)
    }

    public var isDuration: Bool {
        if case .duration = kind { return true }
        return false
    }

    /// The duration this key holds in `settings` (zero for a choice).
    public func duration(in settings: Values) -> Duration {
        guard case .duration(let path) = kind else { return .zero }
        return settings[keyPath: path.keyPath]
    }

    /// `settings` with this duration key set to `value` (unchanged for a choice).
    public func setting(_ value: Duration, in settings: Values) -> Values {
        guard case .duration(let path) = kind else { return settings }
        var changed = settings
        changed[keyPath: path.keyPath] = value
        return changed
    }
}

extension SectionKey {
    /// The key's value in `settings` as logs write it: `5 s` for a duration, the word for a
    /// choice, the number for an integer.
    public func text(in settings: Values) -> String {
        switch kind {
        case .duration(let path): "\(settings[keyPath: path.keyPath].secondsText) s"
        case .choice(let read, _): read(settings)
        case .integer(let path): "\(settings[keyPath: path.keyPath])"
        }
    }
}
