/// Every bound the loader and its driver keep, named once.
public enum SCXMLLimits {
    /// Room in the runtime's internal queue (`<raise>`, `<send target="#_internal">`, done
    /// events) during one external event: a document raising more in one step is reported as an
    /// error, not run with events lost.
    public static let internalQueueCapacity = 256
    /// External events (sent to the session or delayed) one run may dispatch before the driver
    /// calls it a run that never ends: a document that keeps sending itself events for ever.
    public static let maximumExternalEvents = 10_000
    /// Lines of `<log>` output a run keeps (later ones are counted, not kept).
    public static let maximumLogLines = 1_000
    /// The longest literal delay a `<send>` may give: a day, in virtual time.
    public static let maximumDelayNanoseconds: Int64 = 86_400 * 1_000_000_000
    /// Characters of an expression the integer datamodel reads (a longer one is refused).
    public static let maximumExpressionLength = 1_000
    /// How deep an `<if>` may nest inside executable content.
    public static let maximumIfDepth = 16
}
