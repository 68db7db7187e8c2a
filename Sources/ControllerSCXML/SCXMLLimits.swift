/// Every bound the loader and its driver keep, named once.
///
/// A document is text from outside: each of its sizes that costs time or memory to load has a
/// bound here, checked before the work it would cost, and refused by file, line and element
/// naming the bound and its value (`SCXMLError.overLimit`). The loader's own work is linear in
/// each, and they keep the slowest document they allow under two seconds on an optimised build
/// (docs/reference/scxml.md gives the measurement); charts written by people, hundreds to a few
/// thousand states, are far inside them.
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

    // The document's sizes. The runtime's compile() has passes that grow faster than the
    // machine (its table is laid out by looking through each state's rows once per event, and
    // a chain of unguarded eventless rows is followed from each of its states): the bounds on
    // states and on the table are set so that those stay near a second.

    /// Bytes of one document: 2 MiB, a kilobyte for each of `maximumStates`. No more than
    /// this is read (a larger file, `/dev/zero`, is not read whole).
    public static let maximumDocumentBytes = 2 * 1_024 * 1_024
    /// Elements of one document, before any is read as SCXML: each costs a copy of its name,
    /// attributes and children out of libxml2 (a few hundred bytes).
    public static let maximumElements = 50_000
    /// Attributes (namespace declarations included) of one element. SCXML's elements have at
    /// most seven; the bound is for libxml2 2.9, which checks each attribute of an element
    /// against every earlier one (200,000 attributes, 2 MB, take it 80 s).
    public static let maximumAttributesPerElement = 64
    /// How deeply elements may nest: states nest at most `MachineLimits.maximumDepth` (8) deep
    /// and `<if>` 16, so 64 is far past any document the runtime can run; the bound keeps the
    /// loader's walk of the tree, which recurses, shallow.
    public static let maximumElementDepth = 64
    /// `<state>`, `<parallel>`, `<final>` and `<history>` elements of one document: the
    /// runtime's `MachineLimits.maximumStates` (256, the states whose configuration the host
    /// keeps inline, without allocating), less the root state the builder adds when a document
    /// has several top-level states. The runtime's checks pass each state once, so a document
    /// at this bound loads in a fraction of a second (`Benchmarks/scripts/scxml-limits.py`
    /// measures the worst shapes within the bounds).
    public static let maximumStates = 255
    /// Events of one document: the names its `<raise>` and `<send>` give, `done.state.ID` of
    /// every state that can complete, and `error.execution`.
    public static let maximumEvents = 1_000
    /// States one transition, `initial=` or history default names together (one in each
    /// region of a parallel state): the runtime checks every pair of them for each row.
    public static let maximumTargets = 16
    /// Rows of the runtime's table: a transition once for each event its descriptors match
    /// (`event="*"` matches every event), counted again in every state inside its source (a
    /// superstate's row is a candidate in each of them). Each costs a few hundred bytes.
    public static let maximumRows = 20_000
    /// The expanded table the runtime lays out: (events + 1) × (each state once for itself and
    /// once for each state around it + the rows), a column for each event and one for
    /// eventless rows in every state, each looking through the rows of the state and of the
    /// states around it. The runtime lays out about 3 million a second.
    public static let maximumTableCells = 3_000_000

    // What a person is told.

    /// Characters of libxml2's own message a refusal quotes (the message can quote the
    /// document); escaped, as every document text in a message is (`.shown`).
    public static let maximumLibraryMessageCharacters = 300
    /// Problems of a machine the runtime refuses that the error lists (the rest are counted),
    /// and the characters of each: the runtime's messages name states and events by their ids.
    public static let maximumProblemsListed = 10
    public static let maximumProblemCharacters = 500
}
