/// Writes JSON text (RFC 8259) straight into a byte buffer: what the views serialize with.
///
/// Foundation's `JSONEncoder` cost ~46k instructions of a 207k-instruction request here (measured
/// with `Benchmarks/callgrind.sh`); this writer appends bytes with no intermediate values. Commas
/// are placed by the writer: call `key` before each member's value.
public struct JSONWriter {
    public private(set) var bytes: [UInt8]
    private var needsComma = false

    public init(capacity: Int = 512) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    public mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    public mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    public mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }

    public mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// A member name (ASCII, nothing to escape), then the colon.
    public mutating func key(_ name: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// A member name from a string (escaped), then the colon.
    public mutating func key(_ name: String) {
        string(name)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    public mutating func string(_ value: String) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        appendEscaped(value)
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    /// `"\(prefix)\(middle)\(suffix)"`, escaped: a URL made of a base and an id, without building
    /// the joined string.
    public mutating func string(_ prefix: String, _ middle: StaticString, _ suffix: String) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        appendEscaped(prefix)
        bytes.append(contentsOf: UnsafeBufferPointer(start: middle.utf8Start, count: middle.utf8CodeUnitCount))
        appendEscaped(suffix)
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    public mutating func int(_ value: Int) {
        separate()
        if value < 0 {
            bytes.append(UInt8(ascii: "-"))
            appendDigits(value.magnitude)
        } else {
            appendDigits(UInt(value))
        }
        needsComma = true
    }

    public mutating func bool(_ value: Bool) {
        separate()
        if value {
            bytes.append(contentsOf: [0x74, 0x72, 0x75, 0x65])
        } else {
            bytes.append(contentsOf: [0x66, 0x61, 0x6C, 0x73, 0x65])
        }
        needsComma = true
    }

    public mutating func null() {
        separate()
        bytes.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])
        needsComma = true
    }

    /// `"2026-11-22T10:00:00.000Z"`.
    public mutating func timestamp(_ value: Timestamp) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        value.appendRFC3339(to: &bytes)
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    /// `"2026-11-24"`.
    public mutating func day(_ value: CalendarDay) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        value.appendISO8601(to: &bytes)
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    /// Bytes that are already JSON.
    public mutating func raw(_ json: [UInt8]) {
        separate()
        bytes.append(contentsOf: json)
        needsComma = true
    }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    /// The string's UTF-8 with `"`, `\\` and control characters escaped; runs with nothing to
    /// escape are copied whole.
    private mutating func appendEscaped(_ value: String) {
        let copied: Void? = value.utf8.withContiguousStorageIfAvailable { utf8 in appendEscaped(utf8) }
        if copied == nil {
            var native = value
            native.makeContiguousUTF8()
            native.utf8.withContiguousStorageIfAvailable { appendEscaped($0) }
        }
    }

    private mutating func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        guard let base = utf8.baseAddress else { return }
        var start = 0
        for index in 0..<utf8.count {
            let byte = base[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            bytes.append(contentsOf: UnsafeBufferPointer(start: base + start, count: index - start))
            escape(byte)
            start = index + 1
        }
        bytes.append(contentsOf: UnsafeBufferPointer(start: base + start, count: utf8.count - start))
    }

    private mutating func escape(_ byte: UInt8) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
        case 0x08: bytes.append(UInt8(ascii: "b"))
        case 0x0C: bytes.append(UInt8(ascii: "f"))
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        default:
            func hex(_ nibble: UInt8) -> UInt8 { nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10 }
            bytes.append(UInt8(ascii: "u"))
            bytes.append(UInt8(ascii: "0"))
            bytes.append(UInt8(ascii: "0"))
            bytes.append(hex(byte >> 4))
            bytes.append(hex(byte & 0xF))
        }
    }

    private mutating func appendDigits(_ value: UInt) {
        if value < 10 {
            bytes.append(UInt8(ascii: "0") + UInt8(value))
            return
        }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        var rest = value
        withUnsafeMutableBytes(of: &digits) { buffer in
            while rest > 0 {
                buffer[19 - count] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
                count += 1
            }
            bytes.append(contentsOf: buffer[(20 - count)...])
        }
    }
}

/// A view model that writes itself as JSON.
public protocol JSONWritable {
    func write(to writer: inout JSONWriter)
}

extension Array: JSONWritable where Element: JSONWritable {
    public func write(to writer: inout JSONWriter) {
        writer.beginArray()
        for element in self { element.write(to: &writer) }
        writer.endArray()
    }
}

extension Dictionary: JSONWritable where Key == String, Value == String {
    /// Members in key order, so that output is stable.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        for key in keys.sorted() {
            writer.key(key)
            writer.string(self[key]!)
        }
        writer.endObject()
    }
}
