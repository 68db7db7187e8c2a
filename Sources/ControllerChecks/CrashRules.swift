/// What the crash check holds a daemon to at each kill, apart from how it drives it: each a
/// function of the counts reported, so each is tested on counts made up to break it.
public enum CrashRules {
    /// Every count reported before the kill is at most what is there after it (durable, or
    /// reported by the restarted daemon); how many counts were compared.
    public static func kept(reported: [String: Int], after: [String: Int], where place: String) throws(CheckFailure) -> Int {
        for (kind, value) in reported.sorted(by: { $0.key < $1.key }) where after[kind, default: 0] < value {
            throw CheckFailure("\(place): \(kind) was reported as \(value) before the kill but is \(after[kind, default: 0]) after it")
        }
        return reported.count
    }

    /// Each balance holds on `snapshot`, whose numbers must include the balance's standing gauge.
    public static func balancesHold(_ balances: [StandingBalance], in snapshot: CountSnapshot, where place: String) throws(CheckFailure) {
        for balance in balances {
            guard let standing = snapshot.numbers[balance.standing] else {
                throw CheckFailure("\(place): no \(balance.standing) is reported, which the balance of \(balance.total) in checks.json names; correct \"balances\" there")
            }
            let out = balance.parts.reduce(standing) { $0 + snapshot.counts[$1, default: 0] }
            let total = snapshot.counts[balance.total, default: 0]
            guard total == out else {
                let terms = balance.parts.map { "\($0) \(snapshot.counts[$0, default: 0])" } + ["\(balance.standing) \(standing)"]
                throw CheckFailure("\(place): \(balance.total) does not balance: \(balance.total) \(total) != " + terms.joined(separator: " + "))
            }
        }
    }

    /// Every balance `stats` reports (`…Balances`) is true; a product with balances to check
    /// must report them.
    public static func statsBalancesHold(_ stats: CountSnapshot, expectingSome: Bool, where place: String) throws(CheckFailure) {
        let reported = stats.flags.filter { $0.key.hasSuffix("Balances") }
        if expectingSome && reported.isEmpty {
            throw CheckFailure("\(place): stats reports no balance (no …Balances key), though checks.json lists some: \(stats)")
        }
        let broken = reported.filter { !$0.value }.keys.sorted()
        guard broken.isEmpty else { throw CheckFailure("\(place): stats says \(broken.joined(separator: ", ")) false: \(stats)") }
    }

    /// A standing gauge never survives a restart: the restarted daemon reports 0, and books
    /// what stood at the kill (`durable`'s gauge) as voided by the restart.
    public static func standingVoidedByRestart(_ balances: [StandingBalance], durable: CountSnapshot, restarted: CountSnapshot, where place: String) throws(CheckFailure) {
        for balance in balances {
            let standing = restarted.numbers[balance.standing, default: 0]
            guard standing == 0 else {
                throw CheckFailure("\(place): the restarted daemon reports \(balance.standing) \(standing); a \(balance.standing) never survives a restart")
            }
            let stood = durable.numbers[balance.standing, default: 0]
            let voided = restarted.counts[balance.voidedByRestart, default: 0] - durable.counts[balance.voidedByRestart, default: 0]
            guard voided == stood else {
                throw CheckFailure("\(place): \(balance.standing) \(stood) stood at the kill but \(voided) was booked as \(balance.voidedByRestart) by the restart")
            }
        }
    }
}
