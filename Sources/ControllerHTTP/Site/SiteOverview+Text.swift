import ControllerHost

extension SiteOverview {
    /// `coins 12, passages 11`: the kinds that happened, by name (each name shown as every sink
    /// shows text: no control character reaches a terminal or a page raw).
    public static func counts(_ totals: [String: Int]) -> String {
        let shown = totals.filter { $0.value != 0 }.sorted { $0.key < $1.key }.map { "\($0.key.shown) \($0.value)" }
        return shown.isEmpty ? "nothing counted" : shown.joined(separator: ", ")
    }

    /// `4 s ago`, `12 min ago`, `3 h ago`, `2 d ago`.
    public static func age(seconds: Int64) -> String {
        let seconds = max(0, seconds)
        switch seconds {
        case ..<120: return "\(seconds) s ago"
        case ..<7_200: return "\(seconds / 60) min ago"
        case ..<172_800: return "\(seconds / 3_600) h ago"
        default: return "\(seconds / 86_400) d ago"
        }
    }

    /// How many nodes run `app` (`?` for nodes that never said).
    public func count(of app: String) -> Int {
        controllers.filter { ($0.app ?? "?") == app }.count
    }
}
