/// A snapshot's JSON: the fixed fields under their names, and each gauge as a key of its own
/// beside them (`"credit": 0`), so `/status` and `ctl status --json` read as they did when the
/// turnstile's credit was a field. A reader needs no declaration: every integer key that is not
/// a field is a gauge.
extension DaemonSnapshot {
    /// The snapshot's own keys, which no gauge may be called.
    public enum Field: String, CaseIterable, Sendable {
        case phase, degradedReason, state, counters, uptimeSeconds, board, chip, events, queueDepth
        case droppedCommands, lostEdges, traceLosses, lastTransitions, site, outputOverrides, heldOutputs, superstates, outputs, alsoActive, inputs
        case unsettledSteps, droppedSends

        var key: SnapshotKey { SnapshotKey(rawValue) }
    }

    /// Whether a gauge called `name` would be read back as one of the fixed fields.
    public static func isField(_ name: String) -> Bool { Field(rawValue: name) != nil }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: SnapshotKey.self)
        self.init(
            phase: try container.decode(String.self, forKey: Field.phase.key),
            degradedReason: try container.decodeIfPresent(String.self, forKey: Field.degradedReason.key),
            state: try container.decode(String.self, forKey: Field.state.key),
            gauges: [:],
            counters: try container.decode([String: Int].self, forKey: Field.counters.key),
            uptimeSeconds: try container.decode(Double.self, forKey: Field.uptimeSeconds.key),
            board: try container.decode(String.self, forKey: Field.board.key),
            chip: try container.decode(String.self, forKey: Field.chip.key),
            events: try container.decode(Int.self, forKey: Field.events.key),
            queueDepth: try container.decode(Int.self, forKey: Field.queueDepth.key),
            droppedCommands: try container.decode(Int.self, forKey: Field.droppedCommands.key),
            lostEdges: try container.decode(Int.self, forKey: Field.lostEdges.key),
            traceLosses: try container.decode(Int.self, forKey: Field.traceLosses.key),
            lastTransitions: try container.decode([TransitionSummary].self, forKey: Field.lastTransitions.key),
            site: try container.decodeIfPresent(SiteSnapshot.self, forKey: Field.site.key),
            outputOverrides: try container.decodeIfPresent(Int.self, forKey: Field.outputOverrides.key) ?? 0,
            heldOutputs: try container.decodeIfPresent([String: String].self, forKey: Field.heldOutputs.key) ?? [:],
            superstates: try container.decodeIfPresent([String].self, forKey: Field.superstates.key) ?? [],
            outputs: try container.decodeIfPresent([OutputStatus].self, forKey: Field.outputs.key) ?? [],
            alsoActive: try container.decodeIfPresent([String].self, forKey: Field.alsoActive.key) ?? [],
            inputs: try container.decodeIfPresent([String: Bool].self, forKey: Field.inputs.key),
            unsettledSteps: try container.decodeIfPresent(Int.self, forKey: Field.unsettledSteps.key) ?? 0,
            droppedSends: try container.decodeIfPresent(Int.self, forKey: Field.droppedSends.key) ?? 0)
        // A key that is neither a field nor an integer is something a newer daemon added: left
        // alone, as the fixed fields' decoding leaves unknown keys alone.
        for key in container.allKeys where !Self.isField(key.stringValue) {
            if let value = try? container.decode(Int.self, forKey: key) {
                gauges[key.stringValue] = value
            }
        }
    }

    /// The fields in the order the compiler's encoding had them, the gauges where the credit
    /// was, by name (an encoder without `.sortedKeys` then writes them in a stable order too).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: SnapshotKey.self)
        try container.encode(phase, forKey: Field.phase.key)
        try container.encodeIfPresent(degradedReason, forKey: Field.degradedReason.key)
        try container.encode(state, forKey: Field.state.key)
        // Only for a machine with superstates: a flat machine's snapshot reads as it always did.
        if !superstates.isEmpty { try container.encode(superstates, forKey: Field.superstates.key) }
        for name in gauges.keys.sorted() {
            try container.encode(gauges[name] ?? 0, forKey: SnapshotKey(name))
        }
        try container.encode(counters, forKey: Field.counters.key)
        try container.encode(uptimeSeconds, forKey: Field.uptimeSeconds.key)
        try container.encode(board, forKey: Field.board.key)
        try container.encode(chip, forKey: Field.chip.key)
        try container.encode(events, forKey: Field.events.key)
        try container.encode(queueDepth, forKey: Field.queueDepth.key)
        try container.encode(droppedCommands, forKey: Field.droppedCommands.key)
        try container.encode(lostEdges, forKey: Field.lostEdges.key)
        try container.encode(traceLosses, forKey: Field.traceLosses.key)
        try container.encode(lastTransitions, forKey: Field.lastTransitions.key)
        try container.encodeIfPresent(site, forKey: Field.site.key)
        // Only when there is something to say: a snapshot of a host that never overrode its
        // machine reads as it did before these fields existed.
        if outputOverrides != 0 { try container.encode(outputOverrides, forKey: Field.outputOverrides.key) }
        if !heldOutputs.isEmpty { try container.encode(heldOutputs, forKey: Field.heldOutputs.key) }
        if !outputs.isEmpty { try container.encode(outputs, forKey: Field.outputs.key) }
        if !alsoActive.isEmpty { try container.encode(alsoActive, forKey: Field.alsoActive.key) }
        try container.encodeIfPresent(inputs, forKey: Field.inputs.key)
        if unsettledSteps != 0 { try container.encode(unsettledSteps, forKey: Field.unsettledSteps.key) }
        if droppedSends != 0 { try container.encode(droppedSends, forKey: Field.droppedSends.key) }
    }
}

/// Any key of a snapshot's JSON: a field's, or a gauge's name.
struct SnapshotKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }

    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.init(stringValue) }
    init?(intValue _: Int) { nil }
}
