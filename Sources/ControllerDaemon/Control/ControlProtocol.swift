/// The control socket's wire format: one JSON object per line each way, versioned. The
/// commands are the application's (``ControlVocabulary``).
///
/// A request: `{"v":1,"id":7,"command":"emergency","on":true}`. A reply echoes the `id`:
/// `{"v":1,"id":7,"ok":true,"accepted":"emergencyOn"}`, or on failure
/// `{"v":1,"ok":false,"error":{"code":"unknown_command","message":"…"}}`.
public enum ControlProtocol {
    /// The version this daemon speaks and `ctl` sends.
    public static let version = 1
    /// Every version a request may carry. A new version gets added here while the old one is
    /// still understood, so a daemon upgraded before its clients keeps serving them.
    public static let supportedVersions = [1]
    /// The longest request line accepted, newline excluded. A request is a few dozen bytes; 4 KiB
    /// leaves room for fields yet to come while bounding what one connection makes the daemon hold.
    public static let maxRequestBytes = 4096
    /// The largest `id` accepted: JSON numbers beyond 2^53 lose precision in many clients, so an
    /// id above it could not be echoed back as the same number.
    public static let maxRequestID = 1 << 53
}
