import ControllerHost

/// What `ctl` asks the daemon, once its line is parsed and checked, in the words of the
/// application `App` declares (``ControlVocabulary``).
public enum ControlRequest<App: ControllerApplication>: Sendable, Equatable {
    /// The daemon's snapshot.
    case status
    /// One of the application's direct commands, for the controller's inbox.
    case command(App.Event)
    /// The recent transitions; with `follow`, then every new one as it happens.
    case events(follow: Bool)
    /// A simulated pulse on a pulse input's line (the simulated board only; the daemon refuses
    /// it on real GPIO).
    case pulse(RoleName)
    /// A level input's simulated line made active or inactive (`set`; the simulated board only).
    case level(RoleName, on: Bool)
    /// One of the simulated plant's actions, in its scenario words (`plant arm stuck`; the
    /// simulated board only).
    case plant(App.Plant.Action)
}

/// A request with the client's optional `id`, which the reply echoes.
public struct ControlRequestLine<App: ControllerApplication>: Sendable, Equatable {
    public var id: Int?
    public var request: ControlRequest<App>

    public init(id: Int? = nil, request: ControlRequest<App>) {
        self.id = id
        self.request = request
    }
}
