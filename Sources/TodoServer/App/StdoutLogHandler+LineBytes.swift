import Glibc
import TodoData

/// Stores the bytes of a log line through one pointer into room reserved once for the whole line,
/// rather than appending piece by piece (`Array.append(contentsOf:)` on each string's `utf8`, a
/// capacity and uniqueness check per call).
struct LineBytes {
    private(set) var pointer: UnsafeMutablePointer<UInt8>

    init(_ pointer: UnsafeMutablePointer<UInt8>) {
        self.pointer = pointer
    }

    /// Room a time takes at most (`time` writes 24 bytes for years 0–9999, more beyond).
    static let timeCapacity = 32
    /// Room a non-negative `Int64` in decimal takes at most.
    static let decimalCapacity = 20

    @inline(__always)
    mutating func byte(_ value: UInt8) {
        pointer[0] = value
        pointer += 1
    }

    @inline(__always)
    mutating func raw(_ text: StaticString) {
        let count = text.utf8CodeUnitCount
        _ = memcpy(pointer, text.utf8Start, count)
        pointer += count
    }

    /// Room `text` may take: at most `LogText.maxEscapedBytes` bytes for each of its bytes (a control character escaped).
    static func capacity(of text: String) -> Int { text.utf8.count * LogText.maxEscapedBytes }

    /// The UTF-8 bytes of `text`, control characters escaped (`LogText`): a client's bytes quoted in
    /// a line (a problem's detail echoes a decoded value) can neither end the line nor forge the next.
    @inline(__always)
    mutating func text(_ text: String) {
        // -1: a byte needs escaping (or the bytes are not contiguous): one at a time.
        let copied: Int =
            text.utf8.withContiguousStorageIfAvailable { bytes in
                guard !bytes.contains(where: LogText.needsEscape) else { return -1 }
                if let source = bytes.baseAddress { _ = memcpy(pointer, source, bytes.count) }
                return bytes.count
            } ?? -1
        if copied >= 0 {
            pointer += copied
        } else {
            for byte in text.utf8 { LogText.write(byte) { self.byte($0) } }
        }
    }

    /// `value` (0 or more) in decimal.
    @inline(__always)
    mutating func decimal(_ value: Int64) {
        pointer += JSONWriter.writeDigits(UInt(value.magnitude), to: pointer)
    }

    /// `microseconds` (0 or more) as milliseconds with three decimals: `12.345`.
    mutating func milliseconds(microseconds: Int64) {
        decimal(microseconds / 1000)
        let fraction = Int(microseconds % 1000)
        let zero = UInt8(ascii: "0")
        pointer[0] = UInt8(ascii: ".")
        pointer[1] = zero + UInt8(truncatingIfNeeded: fraction / 100)
        pointer[2] = zero + UInt8(truncatingIfNeeded: fraction / 10 % 10)
        pointer[3] = zero + UInt8(truncatingIfNeeded: fraction % 10)
        pointer += 4
    }

    /// `2026-11-22T10:00:00.123Z`, as `Timestamp.appendRFC3339` writes it.
    mutating func time(_ value: Timestamp) {
        let (days, inDay) = value.daysAndMillisecondsInDay
        let day = CalendarDay(daysSinceEpoch: days)
        guard (0...9999).contains(day.year) else {
            var text: [UInt8] = []
            value.appendRFC3339(to: &text)
            for byte in text.prefix(Self.timeCapacity) { self.byte(byte) }
            return
        }
        JSONWriter.writeDay(year: day.year, month: day.month, day: day.day, to: pointer)
        // `THH:MM:SS.mmmZ` and a quote, which the next byte overwrites (the line goes on after the time).
        JSONWriter.writeTimeOfDay(millisecondsInDay: inDay, to: pointer + 10)
        pointer += 24
    }
}
