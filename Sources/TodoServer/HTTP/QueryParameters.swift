import TodoData

/// The decoded `name=value` pairs of a query string (`+` is a space, `%XX` is decoded).
public struct QueryParameters: Sendable, Equatable {
    public private(set) var pairs: [(name: String, value: String)]

    public init(_ query: String? = nil) {
        var pairs: [(name: String, value: String)] = []
        if let query, !query.isEmpty {
            Self.forEachItem(in: query) { name, rawValue in
                pairs.append((name: name, value: rawValue.map(Self.decode) ?? ""))
            }
        }
        self.pairs = pairs
    }

    /// Reads `query` the one way the server reads a query: `init` for the router and the modules
    /// (the live feed's `access_token=` among them), `maskingSecrets(in:)` for the logs, so that
    /// the name a parameter is found under is the name it is masked under, however it was spelled.
    /// `&` separates items (empty ones are skipped) and an item's first `=` its name from its value;
    /// `visit` gets each item's decoded name (`decode`) and its raw value, a slice of `query` (nil
    /// without `=`).
    static func forEachItem(in query: String, _ visit: (_ name: String, _ rawValue: Substring?) -> Void) {
        for item in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            visit(decode(parts[0]), parts.count > 1 ? parts[1] : nil)
        }
    }

    /// A name or value as sent in a query, decoded: `+` is a space, `%XX` a byte.
    static func decode(_ raw: Substring) -> String {
        PercentDecoding.decode(raw, plusIsSpace: true)
    }

    /// The first value given for `name`.
    public subscript(name: String) -> String? {
        pairs.first { $0.name == name }?.value
    }

    /// Every value given for `name`, in order.
    public func values(for name: String) -> [String] {
        pairs.compactMap { $0.name == name ? $0.value : nil }
    }

    /// The same parameters with `updates` set: each replaces the first pair of its name (and drops
    /// the others) or is appended.
    public func setting(_ updates: KeyValuePairs<String, String>) -> QueryParameters {
        var result = self
        for (name, value) in updates {
            if let index = result.pairs.firstIndex(where: { $0.name == name }) {
                result.pairs[index].value = value
                var seen = false
                result.pairs.removeAll { pair in
                    guard pair.name == name else { return false }
                    defer { seen = true }
                    return seen
                }
            } else {
                result.pairs.append((name: name, value: value))
            }
        }
        return result
    }

    /// The query string, `name=value` pairs percent-encoded and joined by `&`.
    public var encoded: String {
        pairs.map { PercentEncoding.encode($0.name) + "=" + PercentEncoding.encode($0.value) }.joined(separator: "&")
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.pairs.count == rhs.pairs.count && zip(lhs.pairs, rhs.pairs).allSatisfy { $0 == $1 }
    }
}

/// RFC 3986 percent-decoding; malformed escapes are kept as they are, invalid UTF-8 is repaired.
enum PercentDecoding {
    static func decode(_ text: some StringProtocol, plusIsSpace: Bool = false) -> String {
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "%") || (plusIsSpace && $0 == UInt8(ascii: "+")) }) else {
            return String(text)
        }
        let utf8 = Array(text.utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var index = 0
        while index < utf8.count {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%"), index + 2 < utf8.count,
                let high = Hex.value(of: utf8[index + 1]), let low = Hex.value(of: utf8[index + 2])
            {
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes.append(plusIsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

}

/// RFC 3986 percent-encoding of everything but the unreserved characters.
enum PercentEncoding {
    static func encode(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                result.unicodeScalars.append("%")
                result.unicodeScalars.append(Unicode.Scalar(Hex.digit(UInt64(byte >> 4), uppercase: true)))
                result.unicodeScalars.append(Unicode.Scalar(Hex.digit(UInt64(byte), uppercase: true)))
            }
        }
        return result
    }
}
