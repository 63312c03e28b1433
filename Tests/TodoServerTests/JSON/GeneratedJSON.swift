import TestSupport

@testable import TodoServer

/// Seeded random JSON values, their texts with spacing and escapes varied, and damaged copies of
/// those texts, for the differential tests against Foundation.
struct GeneratedJSON {
    private var generator: SplitMix64
    /// Whether values hold doubles (the writer writes none).
    private let numbers: Bool

    init(seed: UInt64, numbers: Bool) {
        generator = SplitMix64(seed: seed)
        self.numbers = numbers
    }

    /// The characters that need care: quote, backslash, slash, controls, DEL, non-ASCII of every
    /// UTF-8 length, separators, a byte order mark, and JSON's own punctuation.
    private static let alphabet: [Unicode.Scalar] = [
        "a", "Z", "0", " ", "\"", "\\", "/", "\n", "\r", "\t", "\u{8}", "\u{C}", "\u{0}", "\u{1F}", "\u{7F}", "é", "€", "😀",
        "\u{2028}", "\u{FEFF}", "{", "]", ":", ",",
    ]
    private static let integers = [0, 1, -1, 10, Int.max, Int.min, 9_007_199_254_740_991, -9_007_199_254_740_991]
    /// Bytes a damage inserts: JSON's punctuation and letters, controls, and bytes that are not UTF-8.
    private static let damage = Array("{}[],:\"\\0-.eE+tfnu1 a".utf8) + [0x01, 0x1F, 0x7F, 0xC3, 0xFF, 0x80]

    private mutating func below(_ count: Int) -> Int { Int.random(in: 0..<count, using: &generator) }

    mutating func string() -> String {
        var string = ""
        for _ in 0..<below(12) { string.unicodeScalars.append(Self.alphabet[below(Self.alphabet.count)]) }
        return string
    }

    mutating func value(depth: Int) -> JSONValue {
        switch below(depth < 4 ? 7 : 5) {
        case 0: return .null
        case 1: return .bool(below(2) == 0)
        case 2:
            return .integer(below(2) == 0 ? Self.integers[below(Self.integers.count)] : Int.random(in: .min ... .max, using: &generator))
        case 3: return .string(string())
        case 4:
            guard numbers else { return .string(string()) }
            let number = Double(bitPattern: generator.next())
            return .number(number.isFinite ? number : Double(below(1000)) / 8 + 0.0625)  // never integral: `.number` to both
        case 5: return .array((0..<below(5)).map { _ in value(depth: depth + 1) })
        default:
            var members: [String: JSONValue] = [:]
            for _ in 0..<below(5) { members[string()] = value(depth: depth + 1) }
            return .object(members)
        }
    }

    /// A JSON text of `value`, with whitespace between tokens and escapes chosen at random.
    mutating func text(of value: JSONValue) -> String {
        var out = space()
        append(value, to: &out)
        return out + space()
    }

    private mutating func space() -> String {
        ["", "", "", " ", "\n", "\t", "\r\n  "][below(7)]
    }

    private mutating func append(_ value: JSONValue, to out: inout String) {
        switch value {
        case .null: out += "null"
        case .bool(let bool): out += bool ? "true" : "false"
        case .integer(let integer): out += String(integer)
        case .number(let number): out += "\(number)"  // always with `.` or `e`: a double to both readers
        case .string(let string): append(string, to: &out)
        case .array(let elements):
            out += "[" + space()
            for (index, element) in elements.enumerated() {
                if index > 0 { out += space() + "," + space() }
                append(element, to: &out)
            }
            out += space() + "]"
        case .object(let members):
            out += "{" + space()
            for (index, (key, member)) in members.enumerated() {
                if index > 0 { out += space() + "," + space() }
                append(key, to: &out)
                out += space() + ":" + space()
                append(member, to: &out)
            }
            out += space() + "}"
        }
    }

    private mutating func append(_ string: String, to out: inout String) {
        func unicode(_ unit: UInt16, upper: Bool) -> String {
            let hex = String(unit, radix: 16, uppercase: upper)
            return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        }
        out += "\""
        for scalar in string.unicodeScalars {
            let upper = below(2) == 0
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n" where below(2) == 0: out += "\\n"
            case "\t" where below(2) == 0: out += "\\t"
            case "\r" where below(2) == 0: out += "\\r"
            case "\u{8}" where below(2) == 0: out += "\\b"
            case "\u{C}" where below(2) == 0: out += "\\f"
            case "/" where below(2) == 0: out += "\\/"
            case _ where scalar.value < 0x20 || below(6) == 0:
                for unit in String(scalar).utf16 { out += unicode(unit, upper: upper) }
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }

    /// `bytes` with one damage: a byte deleted, inserted, replaced, a cut, a stretch repeated (a
    /// key twice, sometimes), or a comma before a closing bracket.
    mutating func damaged(_ bytes: [UInt8]) -> [UInt8] {
        var bytes = bytes
        let at = below(bytes.count + 1)
        switch below(6) {
        case 0 where at < bytes.count: bytes.remove(at: at)
        case 1: bytes.insert(Self.damage[below(Self.damage.count)], at: at)
        case 2 where at < bytes.count: bytes[at] = Self.damage[below(Self.damage.count)]
        case 3: bytes.removeSubrange(at...)
        case 4:
            let end = at + below(bytes.count - at + 1)
            bytes.insert(contentsOf: bytes[at..<end], at: end)
        default:
            if let close = bytes.indices.filter({ bytes[$0] == UInt8(ascii: "]") || bytes[$0] == UInt8(ascii: "}") }).last {
                bytes.insert(UInt8(ascii: ","), at: close)
            } else {
                bytes.insert(Self.damage[below(Self.damage.count)], at: at)
            }
        }
        return bytes
    }
}
