/// The runtime's version: what `--version` prints, the build information on `/metrics` and the
/// software version Home Assistant's discovery announces.
package enum RuntimeVersion {
    package static let text = "0.1.0"
}
