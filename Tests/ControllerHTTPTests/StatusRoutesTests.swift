import Foundation
import Hummingbird
import Testing
import ControllerDaemon
@testable import ControllerHTTP

@Suite struct StatusRoutesTests {
    @Test func statusIsTheSnapshotAsJSON() async throws {
        let snapshot = fixedSnapshot(phase: "degraded", degradedReason: "chip lost")
        try await withRoutes(SnapshotSource(snapshot)) { client in
            try await client.execute(uri: "/status", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/json")
                let decoded = try JSONDecoder().decode(DaemonSnapshot.self, from: Data(buffer: response.body))
                #expect(decoded == snapshot)
            }
        }
    }

    @Test func healthzIsOkOnlyWhileRunning() async throws {
        let source = SnapshotSource(fixedSnapshot(phase: "running"))
        try await withRoutes(source) { client in
            try await client.execute(uri: "/healthz", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == "ok\n")
            }
            source.set(fixedSnapshot(phase: "degraded", degradedReason: "store lost: disk full"))
            try await client.execute(uri: "/healthz", method: .get) { response in
                #expect(response.status == .serviceUnavailable)
                #expect(String(buffer: response.body) == "phase: degraded (store lost: disk full)\n")
            }
            for phase in ["starting", "selfTest", "draining", "stopped"] {
                source.set(fixedSnapshot(phase: phase))
                try await client.execute(uri: "/healthz", method: .get) { response in
                    #expect(response.status == .serviceUnavailable)
                    #expect(String(buffer: response.body) == "phase: \(phase)\n")
                }
            }
        }
    }

    @Test func thePageShowsTheStateAndHighlightsItInTheDiagram() async throws {
        try await withRoutes(SnapshotSource(fixedSnapshot(state: "outOfOrder"))) { client in
            try await client.execute(uri: "/", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/html; charset=utf-8")
                let page = String(buffer: response.body)
                #expect(page.contains(#"data-state="outOfOrder">outOfOrder</div>"#))
                #expect(page.contains(#"<g class="node current" data-state="outOfOrder">"#))
                #expect(page.components(separatedBy: "class=\"node current\"").count == 2)
                for state in ["locked", "unlocked", "broken", "emergency"] {
                    #expect(page.contains(#"<g class="node" data-state="\#(state)">"#))
                }
                // The board name is escaped, and nothing is fetched from elsewhere.
                #expect(page.contains("sim &lt;test&gt; &amp; co"))
                #expect(!page.contains("sim <test>"))
                for external in ["http://", "https://", "src=", "<link"] {
                    #expect(!page.contains(external))
                }
                #expect(page.contains(#"fetch("/status""#))
            }
        }
    }

    @Test func unknownPathsAre404AndOtherMethods405() async throws {
        try await withRoutes(SnapshotSource(fixedSnapshot())) { client in
            for path in ["/nope", "/metrics/extra", "/status.json"] {
                try await client.execute(uri: path, method: .get) { #expect($0.status == .notFound) }
            }
            for path in StatusRoutes.paths {
                for method: HTTPRequest.Method in [.post, .put, .delete, .head] {
                    try await client.execute(uri: path, method: method) { response in
                        #expect(response.status == .methodNotAllowed)
                        #expect(response.headers[.allow] == "GET")
                    }
                }
            }
            try await client.execute(uri: "/nope", method: .post) { #expect($0.status == .notFound) }
        }
    }
}
