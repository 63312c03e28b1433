import Glibc

/// An IANA time zone (such as Europe/Berlin) read from the system's zoneinfo files (RFC 8536 TZif,
/// the `tzdata` package), or a fixed offset written as Foundation writes one (`GMT+2`, `UTC-03:30`).
/// It answers one question: the offset from UTC at an instant. Equal when the identifiers are.
public struct IANATimeZone: Sendable, Equatable, CustomStringConvertible {
    /// The identifier as given.
    public let identifier: String
    /// Transition instants (seconds since 1970), ascending, and the offset that starts at each.
    let transitions: [Int64]
    let transitionOffsets: [Int32]
    /// The offset before the first transition (time type 0), or the fixed offset.
    let initialOffset: Int32
    /// The rule after the last transition (the TZif footer), if any.
    let rule: PosixTimeZoneRule?

    /// Coordinated Universal Time, without a file.
    public static let utc = IANATimeZone(identifier: "UTC", fixedOffset: 0)

    /// Where zoneinfo files are read from.
    public static let systemDirectory = "/usr/share/zoneinfo"

    /// The zone named `identifier`, or nil when no zoneinfo file of that name holds a valid zone
    /// (or `directory` lacks it). Names outside the IANA ones (`posix/…`, `right/…`, `localtime`,
    /// `posixrules`, paths with `.` or `..`) are refused as Foundation's ICU refuses them.
    public init?(identifier: String, directory: String = IANATimeZone.systemDirectory) {
        if let offset = Self.fixedOffset(identifier) {
            self.init(identifier: identifier, fixedOffset: offset)
            return
        }
        guard Self.isZoneName(identifier),
            let bytes = Self.readSmallFile(directory + "/" + identifier),
            let parsed = TZifData(parsing: bytes)
        else { return nil }
        self.init(
            identifier: identifier, transitions: parsed.transitions, transitionOffsets: parsed.transitionOffsets,
            initialOffset: parsed.initialOffset, rule: parsed.rule)
    }

    init(identifier: String, fixedOffset: Int32) {
        self.init(identifier: identifier, transitions: [], transitionOffsets: [], initialOffset: fixedOffset, rule: nil)
    }

    private init(identifier: String, transitions: [Int64], transitionOffsets: [Int32], initialOffset: Int32, rule: PosixTimeZoneRule?) {
        self.identifier = identifier
        self.transitions = transitions
        self.transitionOffsets = transitionOffsets
        self.initialOffset = initialOffset
        self.rule = rule
    }

    public static func == (a: IANATimeZone, b: IANATimeZone) -> Bool { a.identifier == b.identifier }

    public var description: String { identifier }

    /// Seconds east of UTC at `seconds` since 1970-01-01T00:00:00Z.
    public func secondsFromGMT(atSecondsSinceEpoch seconds: Int64) -> Int {
        guard let last = transitions.last else { return Int(rule?.offset(at: seconds) ?? initialOffset) }
        if seconds >= last, let rule { return Int(rule.offset(at: seconds)) }
        guard seconds >= transitions[0] else { return Int(initialOffset) }
        // The last transition at or before `seconds`.
        var low = 0
        var high = transitions.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if transitions[middle] <= seconds { low = middle } else { high = middle - 1 }
        }
        return Int(transitionOffsets[low])
    }

    /// Only IANA-shaped names: letters, digits, `_`, `+`, `-` in `/`-separated parts, none of the
    /// files that are not zones.
    static func isZoneName(_ name: String) -> Bool {
        let utf8 = name.utf8
        guard !utf8.isEmpty, utf8.count <= 64 else { return false }
        let allowed = utf8.allSatisfy { byte in
            (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
                || byte == 0x5F || byte == 0x2B || byte == 0x2D || byte == 0x2F
        }
        guard allowed else { return false }
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.allSatisfy({ !$0.isEmpty }) else { return false }
        return !["posix", "right"].contains(parts[0]) && !["localtime", "posixrules"].contains(name)
    }

    /// Foundation's fixed-offset names: `GMT` or `UTC`, a sign, hours (0–18) as H or HH, then
    /// optionally minutes as MM or :MM (only after HH).
    static func fixedOffset(_ name: String) -> Int32? {
        let bytes = Array(name.utf8)
        guard bytes.count >= 5, bytes.starts(with: Array("GMT".utf8)) || bytes.starts(with: Array("UTC".utf8)),
            bytes[3] == 0x2B || bytes[3] == 0x2D
        else { return nil }
        let sign: Int32 = bytes[3] == 0x2B ? 1 : -1
        let rest = bytes[4...]
        func digits(_ slice: ArraySlice<UInt8>) -> Int32? {
            guard !slice.isEmpty, slice.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            return slice.reduce(0) { $0 * 10 + Int32($1 - 0x30) }
        }
        let hours: Int32
        var minutes: Int32 = 0
        switch rest.count {
        case 1, 2:
            guard let h = digits(rest) else { return nil }
            hours = h
        case 4:
            guard let h = digits(rest.prefix(2)), let m = digits(rest.suffix(2)) else { return nil }
            (hours, minutes) = (h, m)
        case 5:
            guard rest[rest.startIndex + 2] == 0x3A, let h = digits(rest.prefix(2)), let m = digits(rest.suffix(2)) else { return nil }
            (hours, minutes) = (h, m)
        default:
            return nil
        }
        guard hours <= 18, minutes < 60, hours * 3600 + minutes * 60 <= 18 * 3600 else { return nil }
        return sign * (hours * 3600 + minutes * 60)
    }

    /// A zoneinfo file's bytes (they are a few kilobytes; anything over 256 KiB is not one).
    static func readSmallFile(_ path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG, status.st_size <= 262_144 else { return nil }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return bytes }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            bytes += chunk[..<count]
            if bytes.count > 262_144 { return nil }
        }
    }
}
