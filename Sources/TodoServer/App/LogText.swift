/// How a text log line quotes text it does not own (a client's bytes echoed in a problem's detail,
/// a value in metadata): every control character (C0 and DEL) is written as `\n`, `\r`, `\t` or
/// `\xNN`, so a line stays one line (CWE-117: a percent-encoded line feed in a query parameter
/// wrote a forged access line after the real one) and no terminal escape reaches an operator's
/// screen. JSON lines escape the same characters by JSON's rules (`JSONWriter`).
enum LogText {
    /// The most bytes one byte becomes (`\x1B`).
    static let maxEscapedBytes = 4

    @inline(__always) static func needsEscape(_ byte: UInt8) -> Bool { byte < 0x20 || byte == 0x7F }

    /// Hands `write` the bytes `byte` becomes in a line.
    @inline(__always) static func write(_ byte: UInt8, _ write: (UInt8) -> Void) {
        guard needsEscape(byte) else { return write(byte) }
        write(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\n"): write(UInt8(ascii: "n"))
        case UInt8(ascii: "\r"): write(UInt8(ascii: "r"))
        case UInt8(ascii: "\t"): write(UInt8(ascii: "t"))
        default:
            write(UInt8(ascii: "x"))
            write(hexDigit(byte >> 4))
            write(hexDigit(byte & 0xF))
        }
    }

    @inline(__always) private static func hexDigit(_ value: UInt8) -> UInt8 { value < 10 ? 0x30 + value : 0x37 + value }

    /// `text`'s UTF-8 bytes appended to `line`, control characters escaped.
    static func append(_ text: String, to line: inout [UInt8]) {
        for byte in text.utf8 { write(byte) { line.append($0) } }
    }
}
