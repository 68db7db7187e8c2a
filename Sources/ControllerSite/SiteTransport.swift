import ControllerMQTT

/// What the site needs of a connection to its broker: ControllerMQTT's client in a daemon
/// (``MQTTClient``), the in-memory broker's connection in tests (``InMemoryBroker``), as the
/// simulated chip stands for the kernel's GPIO.
///
/// A transport tells its owner what happens through the events it was made with
/// (``SiteConnector``), on a thread of its own and never from inside one of its calls: the
/// publisher takes its lock around `publish`, and its event handler takes the same lock.
package protocol SiteTransport: AnyObject, Sendable {
    /// The configuration it was made with: the broker's address and the client id, for what
    /// the site says.
    var configuration: MQTTConfiguration { get }
    /// Subscribes to `filter` (MQTT's `+` and `#` wildcards), now and at every reconnection.
    func subscribe(_ filter: String, qos: MQTTQoS) throws(MQTTError) -> MQTTMessageID?
    /// Starts connecting; the connection is kept (reconnecting) until `stop`.
    func start() throws(MQTTError)
    /// Publishes `payload` on `topic`; the `published` event names the identifier when the
    /// broker acknowledges it. While disconnected, a message of QoS 1 waits and is sent on
    /// reconnecting.
    func publish(topic: String, payload: [UInt8], qos: MQTTQoS, retain: Bool) throws(MQTTError) -> MQTTMessageID
    /// Disconnects for good, cleanly: no last will.
    func stop()
}

/// Makes a site's connection to its broker for a configuration, with the handler of its events.
package typealias SiteConnector = @Sendable (MQTTConfiguration, @escaping @Sendable (MQTTEvent) -> Void) throws(MQTTError) -> any SiteTransport

extension MQTTClient: SiteTransport {
    /// A daemon's site connector: libmosquitto's client.
    package static let connector: SiteConnector = { configuration, events throws(MQTTError) in
        try MQTTClient(configuration: configuration, events: events)
    }
}
