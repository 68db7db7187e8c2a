/// The store's bounds, for every application.
public enum StoreLimits {
    /// A retention shorter than a day would delete events while the day's report is still being
    /// read; a day is the least that makes sense.
    public static let minimumRetentionDays = 1
    /// A century: longer keeps the events as well as keeping them all, and a bound keeps the
    /// retention's cutoff (days in nanoseconds) far inside Int64.
    public static let maximumRetentionDays = 36_500
    /// The largest count, gauge or total read from the database: a sixteenth of `Int64.max`, so
    /// that neither adding what a batch brings to a total nor a durable invariant's sum of a few
    /// totals can overflow. A larger value read from the file was not written by the store, and
    /// is refused (`StoreError.invalidValue`).
    public static let maximumCount = Int(Int64.max / 16)
    /// How long a connection waits for another to release its lock before failing: a `stats`
    /// reader and the daemon share the file, and a WAL checkpoint can hold it briefly.
    static let busyTimeoutMilliseconds: Int32 = 5_000
    /// How long opening for writing waits for the file's lock before saying another daemon holds
    /// it. A daemon holds it for as long as it runs; but a process that forks (a supervisor's
    /// helper, the tests' child processes) keeps a just-closed lock alive in the child until the
    /// child execs, so one closing and reopening its store can find it held for a moment.
    static let writeLockWaitMilliseconds = 1_000
    /// How often the wait above tries again.
    static let writeLockRetryMilliseconds = 10
}
