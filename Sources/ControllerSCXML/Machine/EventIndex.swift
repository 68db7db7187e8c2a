/// The events a transition's descriptors match, found without trying each event against each
/// descriptor: every event is listed under each of its dot-prefixes (`a.b.c` under `a`, `a.b`
/// and `a.b.c`), so a descriptor finds its events in one lookup, and `*` is every event. The
/// index holds as many entries as the names have dot-separated tokens; a transition's
/// expansion costs the rows it makes. Matches what `EventDescriptor.matches` says of each.
struct EventIndex {
    private let eventCount: Int
    private let byPrefix: [String: [Int]]
    /// `seen[event] == stamp` when `event` was already matched for the transition stamped so.
    private var seen: [Int]
    private var stamp = 0

    init(events: [String]) {
        eventCount = events.count
        var byPrefix: [String: [Int]] = [:]
        for (number, name) in events.enumerated() {
            var rest = name.startIndex
            while let dot = name[rest...].firstIndex(of: ".") {
                byPrefix[String(name[..<dot]), default: []].append(number)
                rest = name.index(after: dot)
            }
            byPrefix[name, default: []].append(number)
        }
        self.byPrefix = byPrefix
        seen = [Int](repeating: -1, count: events.count)
    }

    /// The events (by number, ascending) any of `descriptors` matches, each once.
    mutating func events(matching descriptors: [EventDescriptor]) -> [Int] {
        if descriptors.contains(where: { $0.prefix == nil }) { return Array(0..<eventCount) }
        stamp += 1
        var matched: [Int] = []
        for descriptor in descriptors {
            for event in byPrefix[descriptor.prefix!] ?? [] where seen[event] != stamp {
                seen[event] = stamp
                matched.append(event)
            }
        }
        return descriptors.count > 1 ? matched.sorted() : matched
    }
}
