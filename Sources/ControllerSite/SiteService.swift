import ControllerHost
import ServiceLifecycle

/// The node's publishing as a service of the daemon's group: in the drain, after the store's
/// last commit, the outbox is published as far as the broker takes it and the node says
/// `offline`.
package struct SiteService<App: ControllerApplication>: Service {
    package let publisher: SitePublisher<App>

    package init(publisher: SitePublisher<App>) {
        self.publisher = publisher
    }

    package func run() async {
        try? await gracefulShutdown()
        publisher.finish(lastTotals: nil)
    }
}
