import Glibc
import TodoData

/// Writes JSON text (RFC 8259) straight into a byte buffer: what the views serialize with.
///
/// Foundation's `JSONEncoder` goes through `Encodable`'s containers and builds intermediate values;
/// this writer appends bytes with none. Commas are placed by the writer: call `key` before each
/// member's value.
///
/// Each call reserves room for the most it can write once, then stores bytes through one pointer
/// (no per-byte `Array.append` with its uniqueness and capacity checks); strings are checked for
/// bytes to escape eight at a time; the date part of a timestamp is formatted once per day seen.
public struct JSONWriter {
    /// The output is `storage[0..<count]`; the rest is room to write into (not zero-filled).
    private var storage: [UInt8]
    private var count = 0
    private var needsComma = false
    /// The last day a timestamp fell on, and its `YYYY-MM-DD` (a list's to-dos share a few days).
    private var cachedDay = Int.min
    private var cachedDayText: UInt128 = 0

    public init(capacity: Int = 512) {
        storage = Self.room(Swift.max(capacity, 16), keeping: UnsafeBufferPointer(start: nil, count: 0))
    }

    /// The JSON written so far (a copy: `finish()` hands over the buffer instead).
    public var bytes: [UInt8] { Array(storage[0..<count]) }

    /// The JSON written, in the writer's own buffer (trimmed, not copied); the writer is empty after.
    public mutating func finish() -> [UInt8] {
        var result: [UInt8] = []
        swap(&result, &storage)
        result.removeLast(result.count - count)
        count = 0
        needsComma = false
        return result
    }

    public mutating func beginObject() { punctuation(UInt8(ascii: "{")) }

    public mutating func endObject() { closing(UInt8(ascii: "}")) }

    public mutating func beginArray() { punctuation(UInt8(ascii: "[")) }

    public mutating func endArray() { closing(UInt8(ascii: "]")) }

    /// A member name (ASCII, nothing to escape), then the colon.
    public mutating func key(_ name: StaticString) {
        let length = name.utf8CodeUnitCount
        let source = name.utf8Start
        separated(maximum: length + 3, thenComma: false) { out in
            out[0] = UInt8(ascii: "\"")
            _ = memcpy((out + 1), source, length)
            out[1 + length] = UInt8(ascii: "\"")
            out[2 + length] = UInt8(ascii: ":")
            return 3 + length
        }
    }

    /// A member name from a string (escaped), then the colon. Disfavoured: a literal name takes
    /// the `StaticString` overload, which copies it without a scan.
    @_disfavoredOverload
    public mutating func key(_ name: String) {
        string(name)
        write(maximum: 1) { out in
            out[0] = UInt8(ascii: ":")
            return 1
        }
        needsComma = false
    }

    public mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { string(utf8: $0) }
    }

    /// A string given as UTF-8 bytes, escaped. Most strings need no escape: those are checked
    /// eight bytes at a time and copied with their quotes and comma in one step.
    public mutating func string(utf8 value: UnsafeBufferPointer<UInt8>) {
        guard JSONEscape.firstToEscape(in: value, from: 0) == value.count else {
            separate()
            quote()
            appendEscaped(value)
            quote()
            needsComma = true
            return
        }
        separated(maximum: value.count + 2) { out in
            out[0] = UInt8(ascii: "\"")
            if let source = value.baseAddress { _ = memcpy((out + 1), source, value.count) }
            out[1 + value.count] = UInt8(ascii: "\"")
            return 2 + value.count
        }
    }

    /// `"\(prefix)\(middle)\(suffix)"` from UTF-8 bytes, escaped: a URL made of a base and an id,
    /// without building the joined string.
    public mutating func string(utf8 prefix: UnsafeBufferPointer<UInt8>, _ middle: StaticString, utf8 suffix: UnsafeBufferPointer<UInt8>) {
        if joinedIfClean(prefix, middle, suffix) { return }
        separate()
        quote()
        appendEscaped(prefix)
        let length = middle.utf8CodeUnitCount
        let source = middle.utf8Start
        write(maximum: length) { out in
            _ = memcpy(out, source, length)
            return length
        }
        appendEscaped(suffix)
        quote()
        needsComma = true
    }

    /// `"head middle tail"` in one step when neither part needs an escape; false otherwise.
    private mutating func joinedIfClean(
        _ head: UnsafeBufferPointer<UInt8>, _ middle: StaticString, _ tail: UnsafeBufferPointer<UInt8>
    ) -> Bool {
        guard JSONEscape.firstToEscape(in: head, from: 0) == head.count, JSONEscape.firstToEscape(in: tail, from: 0) == tail.count else {
            return false
        }
        let middleCount = middle.utf8CodeUnitCount
        let middleStart = middle.utf8Start
        separated(maximum: head.count + middleCount + tail.count + 2) { out in
            out[0] = UInt8(ascii: "\"")
            var position = 1
            if let source = head.baseAddress { _ = memcpy((out + position), source, head.count) }
            position += head.count
            _ = memcpy((out + position), middleStart, middleCount)
            position += middleCount
            if let source = tail.baseAddress { _ = memcpy((out + position), source, tail.count) }
            position += tail.count
            out[position] = UInt8(ascii: "\"")
            return position + 1
        }
        return true
    }

    public mutating func int(_ value: Int) {
        separated(maximum: 20) { out in
            var position = 0
            if value < 0 {
                out[0] = UInt8(ascii: "-")
                position = 1
            }
            return position + Self.writeDigits(value.magnitude, to: out + position)
        }
    }

    public mutating func bool(_ value: Bool) {
        literal(value ? "true" : "false")
    }

    public mutating func null() {
        literal("null")
    }

    /// `"2026-11-22T10:00:00.000Z"`.
    public mutating func timestamp(_ value: Timestamp) {
        let (days, inDay) = value.daysAndMillisecondsInDay
        if days != cachedDay {
            let day = CalendarDay(daysSinceEpoch: days)
            guard (0...9999).contains(day.year) else {
                var text: [UInt8] = []
                value.appendRFC3339(to: &text)
                return text.withUnsafeBufferPointer { quotedASCII($0) }
            }
            cachedDay = days
            cachedDayText = Self.dayText(year: day.year, month: day.month, day: day.day)
        }
        let dayText = cachedDayText
        separated(maximum: 26) { out in
            out[0] = UInt8(ascii: "\"")
            withUnsafeBytes(of: dayText) { _ = memcpy((out + 1), $0.bindMemory(to: UInt8.self).baseAddress!, 10) }
            JSONWriter.writeTimeOfDay(millisecondsInDay: inDay, to: out + 11)
            return 26
        }
    }

    /// `"2026-11-24"`.
    public mutating func day(_ value: CalendarDay) {
        let (year, month, day) = (value.year, value.month, value.day)
        guard (0...9999).contains(year) else {
            var text: [UInt8] = []
            value.appendISO8601(to: &text)
            return text.withUnsafeBufferPointer { quotedASCII($0) }
        }
        let dayText = Self.dayText(year: year, month: month, day: day)
        separated(maximum: 12) { out in
            out[0] = UInt8(ascii: "\"")
            withUnsafeBytes(of: dayText) { _ = memcpy((out + 1), $0.bindMemory(to: UInt8.self).baseAddress!, 10) }
            out[11] = UInt8(ascii: "\"")
            return 12
        }
    }

    /// Bytes that are already JSON.
    public mutating func raw(_ json: [UInt8]) {
        separate()
        json.withUnsafeBufferPointer { copy($0) }
        needsComma = true
    }

    // MARK: - Writing

    /// Makes room for `maximum` bytes, lets `body` store up to that many at the end of the output
    /// and keeps as many as it says it wrote.
    @inline(__always)
    private mutating func write(maximum: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        if storage.count - count < maximum { grow(toHold: maximum) }
        let start = count
        let written = storage.withUnsafeMutableBufferPointer { body($0.baseAddress! + start) }
        count = start + written
    }

    private mutating func grow(toHold extra: Int) {
        let wanted = Swift.max(storage.count * 2, count + extra)
        storage = storage.withUnsafeBufferPointer { Self.room(wanted, keeping: UnsafeBufferPointer(rebasing: $0[0..<count])) }
    }

    /// `count` bytes: `kept`, then room to write into. With `memcpy`: the generic element-wise
    /// paths (`Array(repeating:count:)`, `append(contentsOf:)` of a sequence) crawl in debug builds
    /// and fill one byte at a time in release.
    ///
    /// Up to `zeroBlock.count` bytes the room is reserved (a specialized allocation) and filled by
    /// copying that many bytes of a block of zeros (one `memcpy`): `Array(unsafeUninitializedCapacity:)`
    /// goes through the stdlib's non-inlinable allocation, which looks the array type's metadata up
    /// at run time on every call. A larger room (a list) is taken that way and left as it is: `UInt8`
    /// is trivial, every byte past `count` is written before it is read, and `finish()` cuts the
    /// output at `count`.
    private static func room(_ count: Int, keeping kept: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        guard count <= zeroBlock.count else {
            return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                if let source = kept.baseAddress { _ = memcpy(buffer.baseAddress!, source, kept.count) }
                initialized = count
            }
        }
        var room: [UInt8] = []
        room.reserveCapacity(count)
        room.append(contentsOf: kept)
        zeroBlock.withUnsafeBufferPointer { zeros in
            room.append(contentsOf: UnsafeBufferPointer(rebasing: zeros[0..<(count - kept.count)]))
        }
        return room
    }

    @inline(__always)
    private mutating func copy(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        write(maximum: bytes.count) { out in
            _ = memcpy(out, source, bytes.count)
            return bytes.count
        }
    }

    /// `write(maximum:_:)` for a value or a member name: a comma first when one is due, then
    /// `body` stores up to `maximum` bytes after it; a comma is due next if `thenComma`.
    @inline(__always)
    private mutating func separated(
        maximum: Int, thenComma: Bool = true, _ body: (UnsafeMutablePointer<UInt8>) -> Int
    ) {
        let comma = needsComma
        write(maximum: maximum + 1) { out in
            var position = 0
            if comma { out[0] = UInt8(ascii: ","); position = 1 }
            return position + body(out + position)
        }
        needsComma = thenComma
    }

    @inline(__always)
    private mutating func punctuation(_ byte: UInt8) {
        let comma = needsComma
        write(maximum: 2) { out in
            if comma {
                out[0] = UInt8(ascii: ",")
                out[1] = byte
                return 2
            }
            out[0] = byte
            return 1
        }
        needsComma = false
    }

    @inline(__always)
    private mutating func closing(_ byte: UInt8) {
        write(maximum: 1) { out in
            out[0] = byte
            return 1
        }
        needsComma = true
    }

    @inline(__always)
    private mutating func literal(_ text: StaticString) {
        let length = text.utf8CodeUnitCount
        let source = text.utf8Start
        separated(maximum: length) { out in
            _ = memcpy(out, source, length)
            return length
        }
    }

    /// ASCII with nothing to escape, in quotes, as a value.
    private mutating func quotedASCII(_ text: UnsafeBufferPointer<UInt8>) {
        separate()
        quote()
        copy(text)
        quote()
        needsComma = true
    }

    @inline(__always)
    private mutating func quote() {
        write(maximum: 1) { out in
            out[0] = UInt8(ascii: "\"")
            return 1
        }
    }

    @inline(__always)
    private mutating func separate() {
        guard needsComma else { return }
        write(maximum: 1) { out in
            out[0] = UInt8(ascii: ",")
            return 1
        }
    }

    /// `YYYY-MM-DD` packed little-endian into the low 10 bytes.
    static func dayText(year: Int, month: Int, day: Int) -> UInt128 {
        var text: UInt128 = 0
        withUnsafeMutableBytes(of: &text) { out in
            writeDay(year: year, month: month, day: day, to: out.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        return text
    }

    /// `THH:MM:SS.mmmZ"` at `out` (15 bytes): the time of day of a timestamp and its closing quote.
    @inline(__always)
    static func writeTimeOfDay(millisecondsInDay inDay: Int, to p: UnsafeMutablePointer<UInt8>) {
        let hours = inDay / 3_600_000, minutes = inDay / 60_000 % 60, seconds = inDay / 1000 % 60, millis = inDay % 1000
        p[0] = UInt8(ascii: "T")
        writeTwoDigits(hours, to: p + 1)
        p[3] = UInt8(ascii: ":")
        writeTwoDigits(minutes, to: p + 4)
        p[6] = UInt8(ascii: ":")
        writeTwoDigits(seconds, to: p + 7)
        p[9] = UInt8(ascii: ".")
        p[10] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: millis / 100)
        writeTwoDigits(millis % 100, to: p + 11)
        p[13] = UInt8(ascii: "Z")
        p[14] = UInt8(ascii: "\"")
    }

    /// `YYYY-MM-DD` at `out` (10 bytes), for a year from 0 to 9999.
    @inline(__always)
    static func writeDay(year: Int, month: Int, day: Int, to out: UnsafeMutablePointer<UInt8>) {
        writeTwoDigits(year / 100, to: out)
        writeTwoDigits(year % 100, to: out + 2)
        out[4] = UInt8(ascii: "-")
        writeTwoDigits(month, to: out + 5)
        out[7] = UInt8(ascii: "-")
        writeTwoDigits(day, to: out + 8)
    }

    /// `value`, from 0 to 99, as two decimal digits at `out`.
    @inline(__always)
    private static func writeTwoDigits(_ value: Int, to out: UnsafeMutablePointer<UInt8>) {
        out[0] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: value / 10)
        out[1] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: value % 10)
    }

    /// Writes `value` in decimal at `out`; returns the digit count (at most 20).
    static func writeDigits(_ value: UInt, to out: UnsafeMutablePointer<UInt8>) -> Int {
        var length = 1
        var rest = value / 10
        while rest > 0 {
            length += 1
            rest /= 10
        }
        rest = value
        var index = length
        repeat {
            index -= 1
            out[index] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
        } while index > 0
        return length
    }

    // MARK: - Escaping

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
        guard let base = utf8.baseAddress, !utf8.isEmpty else { return }
        var start = 0
        var index = JSONEscape.firstToEscape(in: utf8, from: 0)
        while index < utf8.count {
            copy(UnsafeBufferPointer(start: base + start, count: index - start))
            escape(base[index])
            start = index + 1
            index = JSONEscape.firstToEscape(in: utf8, from: start)
        }
        copy(UnsafeBufferPointer(start: base + start, count: utf8.count - start))
    }

    private mutating func escape(_ byte: UInt8) {
        write(maximum: 6) { out in
            out[0] = UInt8(ascii: "\\")
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): out[1] = byte
            case 0x08: out[1] = UInt8(ascii: "b")
            case 0x0C: out[1] = UInt8(ascii: "f")
            case 0x0A: out[1] = UInt8(ascii: "n")
            case 0x0D: out[1] = UInt8(ascii: "r")
            case 0x09: out[1] = UInt8(ascii: "t")
            default:
                out[1] = UInt8(ascii: "u")
                Hex.write(UInt64(byte), digits: 4, to: out + 2)
                return 6
            }
            return 2
        }
    }
}
extension JSONWriter {
    /// Lets `body` write up to `maximum` bytes of one value through a cursor, after a comma if
    /// one is due: one reservation for a whole object.
    @inline(__always)
    public mutating func withCursor(maximum: Int, _ body: (inout JSONCursor) -> Void) {
        let comma = needsComma
        // The cursor carries the writer's last day and its text: a list's to-dos share a few days.
        var day = (cachedDay, cachedDayText)
        write(maximum: maximum + 1) { out in
            var cursor = JSONCursor(comma ? out + 1 : out, cachedDay: day.0, cachedDayText: day.1)
            if comma { out[0] = UInt8(ascii: ",") }
            body(&cursor)
            day = (cursor.cachedDay, cursor.cachedDayText)
            return out.distance(to: cursor.pointer)
        }
        (cachedDay, cachedDayText) = day
        needsComma = true
    }
}

/// A view model that writes itself as JSON.
public protocol JSONWritable {
    func write(to writer: inout JSONWriter)
    /// About how many bytes `write` produces: the writer's first buffer (too small costs a
    /// regrowth, too large wastes room; neither changes the output).
    var jsonSizeHint: Int { get }
}

extension JSONWritable {
    public var jsonSizeHint: Int { 512 }
}

extension Array: JSONWritable where Element: JSONWritable {
    public var jsonSizeHint: Int { 2 + (first?.jsonSizeHint ?? 0) * count }

    public func write(to writer: inout JSONWriter) {
        writer.beginArray()
        // By index through the buffer: `for element in self` copies each element (retaining its strings).
        withUnsafeBufferPointer { elements in
            for index in elements.indices { elements[index].write(to: &writer) }
        }
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

/// Zeros that a small writer room is filled from (`JSONWriter.room`).
private let zeroBlock = [UInt8](repeating: 0, count: 4096)
