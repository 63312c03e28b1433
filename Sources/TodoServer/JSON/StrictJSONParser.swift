/// Parses one RFC 8259 JSON text into a `JSONValue`, strictly: no trailing commas, no duplicate
/// keys, valid UTF-8, bounded nesting.
///
/// Foundation accepts trailing commas and keeps the last of duplicate keys (`JSONSerialization`, as
/// `JSONDifferentialTests` asserts), so a strict check is needed anyway; this single pass builds the
/// values too, sparing a second reading of the body by Foundation's decoder.
struct StrictJSONParser {
    /// Why the bytes are not acceptable JSON, with the byte offset.
    struct Failure: Error, Equatable {
        let message: String
        let offset: Int
    }

    private let bytes: [UInt8]
    private var index = 0
    private let maxDepth: Int
    private let integersByValue: Bool

    /// With `integersByValue`, a number literal whose exact value is an integer that fits in `Int`
    /// is `.integer` whatever its spelling (`1.0`, `3e2`, `100e-2`, `-0.0`), decided on its digits
    /// (`exactInteger`); every `.number` is then a literal whose exact value has a non-zero fraction
    /// or lies outside `Int`, so a reader that wants an integer refuses any `.number` instead of
    /// looking at a `Double` that may have rounded the fraction away (`9007199254740990.9`).
    /// Without it (the default), only a plain integer literal that fits in `Int` is `.integer`.
    static func parse(_ bytes: [UInt8], maxDepth: Int = 64, integersByValue: Bool = false) -> Result<JSONValue, Failure> {
        var parser = StrictJSONParser(bytes: bytes, maxDepth: maxDepth, integersByValue: integersByValue)
        do throws(Failure) {
            parser.skipWhitespace()
            let value = try parser.value(depth: 0)
            parser.skipWhitespace()
            guard parser.index == bytes.count else { throw parser.failure("unexpected data after the JSON value") }
            return .success(value)
        } catch {
            return .failure(error)
        }
    }

    private init(bytes: [UInt8], maxDepth: Int, integersByValue: Bool) {
        self.bytes = bytes
        self.maxDepth = maxDepth
        self.integersByValue = integersByValue
    }

    private func failure(_ message: String) -> Failure {
        Failure(message: message, offset: index)
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    private mutating func expect(_ byte: UInt8, _ what: String) throws(Failure) {
        guard current == byte else { throw failure(current == nil ? "unexpected end of input, expected \(what)" : "expected \(what)") }
        index += 1
    }

    private mutating func value(depth: Int) throws(Failure) -> JSONValue {
        guard depth < maxDepth else { throw failure("nested deeper than \(maxDepth) levels") }
        guard let byte = current else { throw failure("unexpected end of input, expected a value") }
        switch byte {
        case UInt8(ascii: "{"): return .object(try object(depth: depth))
        case UInt8(ascii: "["): return .array(try array(depth: depth))
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw failure("unexpected character, expected a value")
        }
    }

    private mutating func object(depth: Int) throws(Failure) -> [String: JSONValue] {
        var members: [String: JSONValue] = [:]
        if opensEmpty(closing: UInt8(ascii: "}")) { return members }
        repeat {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else {
                throw failure(current == UInt8(ascii: "}") ? "trailing comma in object" : "expected a string key")
            }
            let keyStart = index
            let key = try string()
            guard members[key] == nil else {
                index = keyStart
                throw failure("duplicate key \"\(key)\"")
            }
            skipWhitespace()
            try expect(UInt8(ascii: ":"), "':'")
            skipWhitespace()
            members[key] = try value(depth: depth + 1)
        } while try continues(closing: UInt8(ascii: "}"), expected: "',' or '}'")
        return members
    }

    private mutating func array(depth: Int) throws(Failure) -> [JSONValue] {
        var elements: [JSONValue] = []
        if opensEmpty(closing: UInt8(ascii: "]")) { return elements }
        repeat {
            skipWhitespace()
            if current == UInt8(ascii: "]") { throw failure("trailing comma in array") }
            elements.append(try value(depth: depth + 1))
        } while try continues(closing: UInt8(ascii: "]"), expected: "',' or ']'")
        return elements
    }

    /// Steps over the opening `{` or `[` and the white space after it; true, and past `closing`
    /// too, when nothing is inside.
    private mutating func opensEmpty(closing: UInt8) -> Bool {
        index += 1
        skipWhitespace()
        guard current == closing else { return false }
        index += 1
        return true
    }

    /// After a member or an element: true past a comma (another must follow), false past `closing`.
    private mutating func continues(closing: UInt8, expected: String) throws(Failure) -> Bool {
        skipWhitespace()
        if current == UInt8(ascii: ",") {
            index += 1
            return true
        }
        try expect(closing, expected)
        return false
    }

    /// Reads a string and returns its content with escapes resolved.
    private mutating func string() throws(Failure) -> String {
        index += 1
        var content: [UInt8] = []
        while let byte = current {
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                guard let text = String(validating: content, as: UTF8.self) else { throw failure("string is not valid UTF-8") }
                return text
            case UInt8(ascii: "\\"):
                index += 1
                try escape(into: &content)
            case 0..<0x20:
                throw failure("unescaped control character in string")
            default:
                content.append(byte)
                index += 1
            }
        }
        throw failure("unterminated string")
    }

    private mutating func escape(into content: inout [UInt8]) throws(Failure) {
        guard let byte = current else { throw failure("unterminated string") }
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): content.append(byte)
        case UInt8(ascii: "b"): content.append(0x08)
        case UInt8(ascii: "f"): content.append(0x0C)
        case UInt8(ascii: "n"): content.append(0x0A)
        case UInt8(ascii: "r"): content.append(0x0D)
        case UInt8(ascii: "t"): content.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try hex4()
            if (0xD800..<0xDC00).contains(scalar) {
                guard current == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else {
                    throw failure("unpaired surrogate escape")
                }
                index += 2
                let low = try hex4()
                guard (0xDC00..<0xE000).contains(low) else { throw failure("unpaired surrogate escape") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..<0xE000).contains(scalar) {
                throw failure("unpaired surrogate escape")
            }
            content.append(contentsOf: Array(String(Character(Unicode.Scalar(scalar)!)).utf8))
        default:
            index -= 1
            throw failure("invalid escape sequence")
        }
    }

    private mutating func hex4() throws(Failure) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = current else { throw failure("unterminated \\u escape") }
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw failure("invalid \\u escape")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    /// An integer when the lexeme is one that fits in `Int` (or, with `integersByValue`, when its
    /// exact value is such an integer), else a `Double` (infinite when too large).
    private mutating func number() throws(Failure) -> JSONValue {
        let start = index
        if current == UInt8(ascii: "-") { index += 1 }
        if current == UInt8(ascii: "0") {
            index += 1
        } else {
            guard try digits() > 0 else { throw failure("invalid number") }
        }
        if current == UInt8(ascii: ".") {
            index += 1
            guard try digits() > 0 else { throw failure("invalid number: digits expected after '.'") }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard try digits() > 0 else { throw failure("invalid number: digits expected in exponent") }
        }
        let lexeme = String(decoding: bytes[start..<index], as: UTF8.self)
        if let integer = Int(lexeme) { return .integer(integer) }
        if integersByValue, let integer = Self.exactInteger(bytes[start..<index]) { return .integer(integer) }
        return .number(Double(lexeme) ?? .infinity)
    }

    /// The integer a well-formed number literal denotes exactly, or nil when its exact value has a
    /// non-zero fraction or lies outside `Int`. The literal is its significant digits times ten to
    /// a power: the exponent less the count of digits after the point, plus one for each trailing
    /// zero taken off the digits. Digits left (none is zero) with a negative power are a fraction.
    static func exactInteger(_ literal: ArraySlice<UInt8>) -> Int? {
        var position = literal.startIndex
        let negative = literal[position] == UInt8(ascii: "-")
        if negative { position += 1 }
        var digits: [UInt8] = []  // without leading zeros
        var power = 0
        var afterPoint = false
        while position < literal.endIndex, literal[position] != UInt8(ascii: "e"), literal[position] != UInt8(ascii: "E") {
            let byte = literal[position]
            if byte == UInt8(ascii: ".") {
                afterPoint = true
            } else {
                if afterPoint { power -= 1 }
                if !digits.isEmpty || byte != UInt8(ascii: "0") { digits.append(byte - UInt8(ascii: "0")) }
            }
            position += 1
        }
        if position < literal.endIndex {
            position += 1
            let negativeExponent = literal[position] == UInt8(ascii: "-")
            if literal[position] == UInt8(ascii: "-") || literal[position] == UInt8(ascii: "+") { position += 1 }
            // Capped far beyond any body's length, so that the sign of the power stays right.
            var exponent = 0
            for byte in literal[position...] { exponent = min(exponent * 10 + Int(byte - UInt8(ascii: "0")), 1 << 40) }
            power += negativeExponent ? -exponent : exponent
        }
        while digits.last == 0 {
            digits.removeLast()
            power += 1
        }
        if digits.isEmpty { return 0 }
        guard power >= 0, digits.count + power <= 19 else { return nil }  // `Int.max` has 19 digits
        var magnitude: UInt64 = 0  // at most 19 digits: below `UInt64.max`
        for digit in digits { magnitude = magnitude * 10 + UInt64(digit) }
        for _ in 0..<power { magnitude *= 10 }
        return Int(exactly: negative ? -Int128(magnitude) : Int128(magnitude))
    }

    private mutating func digits() throws(Failure) -> Int {
        let start = index
        while let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { index += 1 }
        return index - start
    }

    private mutating func literal(_ word: StaticString) throws(Failure) {
        let expected = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        guard index + expected.count <= bytes.count, bytes[index..<index + expected.count].elementsEqual(expected) else {
            throw failure("invalid literal, expected \(word)")
        }
        index += expected.count
    }
}
