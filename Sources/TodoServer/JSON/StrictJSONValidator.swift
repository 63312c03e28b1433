/// Checks that bytes are one RFC 8259 JSON text before `JSONDecoder` reads them.
///
/// Foundation's decoder accepts trailing commas and keeps the first of duplicate keys; this check
/// refuses both, and bounds nesting depth. It allocates only for the keys of objects.
struct StrictJSONValidator {
    /// Why the bytes are not acceptable JSON, with the byte offset.
    struct Failure: Error, Equatable {
        let message: String
        let offset: Int
    }

    private let bytes: [UInt8]
    private var index = 0
    private let maxDepth: Int

    static func validate(_ bytes: [UInt8], maxDepth: Int = 64) -> Failure? {
        var validator = StrictJSONValidator(bytes: bytes, maxDepth: maxDepth)
        do throws(Failure) {
            validator.skipWhitespace()
            try validator.value(depth: 0)
            validator.skipWhitespace()
            guard validator.index == bytes.count else { throw validator.failure("unexpected data after the JSON value") }
            return nil
        } catch {
            return error
        }
    }

    private init(bytes: [UInt8], maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
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

    private mutating func value(depth: Int) throws(Failure) {
        guard depth < maxDepth else { throw failure("nested deeper than \(maxDepth) levels") }
        guard let byte = current else { throw failure("unexpected end of input, expected a value") }
        switch byte {
        case UInt8(ascii: "{"): try object(depth: depth)
        case UInt8(ascii: "["): try array(depth: depth)
        case UInt8(ascii: "\""): _ = try string()
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
        default: throw failure("unexpected character, expected a value")
        }
    }

    private mutating func object(depth: Int) throws(Failure) {
        index += 1
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            index += 1
            return
        }
        var keys = Set<[UInt8]>()
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else {
                throw failure(current == UInt8(ascii: "}") ? "trailing comma in object" : "expected a string key")
            }
            let keyStart = index
            let key = try string()
            guard keys.insert(key).inserted else {
                index = keyStart
                throw failure("duplicate key \"\(String(decoding: key, as: UTF8.self))\"")
            }
            skipWhitespace()
            try expect(UInt8(ascii: ":"), "':'")
            skipWhitespace()
            try value(depth: depth + 1)
            skipWhitespace()
            if current == UInt8(ascii: ",") {
                index += 1
                continue
            }
            try expect(UInt8(ascii: "}"), "',' or '}'")
            return
        }
    }

    private mutating func array(depth: Int) throws(Failure) {
        index += 1
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            index += 1
            return
        }
        while true {
            skipWhitespace()
            if current == UInt8(ascii: "]") { throw failure("trailing comma in array") }
            try value(depth: depth + 1)
            skipWhitespace()
            if current == UInt8(ascii: ",") {
                index += 1
                continue
            }
            try expect(UInt8(ascii: "]"), "',' or ']'")
            return
        }
    }

    /// Reads a string and returns its content with escapes resolved (as UTF-8 bytes).
    private mutating func string() throws(Failure) -> [UInt8] {
        index += 1
        var content: [UInt8] = []
        while let byte = current {
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                guard String(validating: content, as: UTF8.self) != nil else { throw failure("string is not valid UTF-8") }
                return content
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

    private mutating func number() throws(Failure) {
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
