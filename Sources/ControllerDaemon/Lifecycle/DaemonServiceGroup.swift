import Logging
import ServiceLifecycle

/// The daemon's services as one group, ordered so that the group's shutdown is the daemon's
/// drain. The event loop's service ends the run: when it returns (a stop request, a GPIO error),
/// the group shuts the others down one at a time, each after the one before has finished —
/// first `drain`, in its order (e.g. systemd, the report, the store, the control socket, the
/// lines), then `alongside` from its last to its first (e.g. the status page, the signals: they
/// serve through the whole drain, so a signal during it is logged and status shows `draining`).
///
/// Every service but the loop's must run until the group shuts it down; one that ends by itself
/// would cancel the others, and the drain with them.
public enum DaemonServiceGroup {
    public static func make(
        loop: any Service, drain: [(any Service)?], alongside: [(any Service)?]
    ) -> ServiceGroup {
        // swift-service-lifecycle shuts services down in the reverse of their order here.
        var services = alongside.compactMap { $0 }.map { ServiceGroupConfiguration.ServiceConfiguration(service: $0) }
        services += drain.compactMap { $0 }.reversed().map { ServiceGroupConfiguration.ServiceConfiguration(service: $0) }
        services.append(.init(service: loop, successTerminationBehavior: .gracefullyShutdownGroup, failureTerminationBehavior: .gracefullyShutdownGroup))
        return ServiceGroup(configuration: ServiceGroupConfiguration(
            services: services,
            // None: the trap (SignalTrap) has every signal from the start of `main`, and the
            // signal service turns them into the loop's stop.
            gracefulShutdownSignals: [],
            logger: Logger(label: "daemon.services", factory: { _ in SwiftLogNoOpLogHandler() })))
    }
}
