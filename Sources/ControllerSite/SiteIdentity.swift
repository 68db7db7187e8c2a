#if canImport(Glibc)
import Glibc
#endif

/// The encodings behind every identity the site derives from a name a person chose (a board's
/// name, the host's, `--mqtt-node`, `--mqtt-prefix`, a gauge's or a command's name): each one is
/// injective (two different inputs never give one identity) or, where the identity has a bounded
/// length, cut with a 64-bit hash of the whole input (a collision needs about 2^32 names).
///
/// The escape: bytes in the kept set stay; `_` becomes `__`; every other byte of the UTF-8
/// becomes `_` and two lowercase hex digits. Decoding reads a `_` and then either a second `_`
/// or two hex digits, so the input is always recovered.
package enum SiteIdentity {
    /// This machine's host name (empty when it cannot be read): the default node id's second
    /// half and every claim's host.
    package static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `keeping` must not include `_` (the escape) or `.` `/` (separators).
    package static func escaped(_ text: some StringProtocol, keeping keep: (UInt8) -> Bool) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if byte == UInt8(ascii: "_") {
                bytes += [byte, byte]
            } else if keep(byte) {
                bytes.append(byte)
            } else {
                bytes += [UInt8(ascii: "_"), hexDigit(byte >> 4), hexDigit(byte & 0xF)]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The inverse of ``escaped(_:keeping:)``; nil for text it cannot have made.
    package static func unescaped(_ text: some StringProtocol) -> String? {
        var bytes: [UInt8] = []
        var input = Array(text.utf8)[...]
        while let byte = input.popFirst() {
            guard byte == UInt8(ascii: "_") else {
                bytes.append(byte)
                continue
            }
            guard let next = input.popFirst() else { return nil }
            if next == UInt8(ascii: "_") {
                bytes.append(next)
                continue
            }
            guard let low = input.popFirst(), let high = hexValue(next), let lowValue = hexValue(low) else { return nil }
            bytes.append(high << 4 | lowValue)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// ASCII letters, digits and `-`.
    package static func isWordByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
    }

    /// A 64-bit hash of `parts` (FNV-1a over each part's bytes and a 0xFF after each, which no
    /// UTF-8 holds, then a finalising mix), stable across runs, machines and versions.
    package static func hash(_ parts: [String]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for part in parts {
            for byte in part.utf8 + [0xFF] { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        }
        // splitmix64's finaliser: every input bit reaches every output bit.
        hash = (hash ^ (hash >> 30)) &* 0xbf58_476d_1ce4_e5b9
        hash = (hash ^ (hash >> 27)) &* 0x94d0_49bb_1331_11eb
        return hash ^ (hash >> 31)
    }

    /// `value` in 16 lowercase hex digits.
    package static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// `value` in 11 base-62 digits (letters and digits: every MQTT broker's client ids take them).
    package static func base62(_ value: UInt64) -> String {
        let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
        var value = value
        var digits: [Character] = []
        for _ in 0..<11 {
            digits.append(alphabet[Int(value % 62)])
            value /= 62
        }
        return String(digits.reversed())
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
