import ControllerFSM
import ControllerHost

/// Each application's machine laid out once per process, however many servers are made (the
/// tests make one per test, and a layout searches its grid).
enum DiagramLayouts {
    private static let laidOut = Guarded<[ObjectIdentifier: DiagramLayout]>([:])

    static func layout<App: ControllerApplication>(of _: App.Type) -> DiagramLayout {
        if let layout = laidOut.withLock({ $0[ObjectIdentifier(App.self)] }) { return layout }
        // Laid out outside the lock: two servers made at once may both lay it out, once each.
        let layout = DiagramLayout(StateDiagram(App.table))
        laidOut.withLock { $0[ObjectIdentifier(App.self)] = layout }
        return layout
    }
}
