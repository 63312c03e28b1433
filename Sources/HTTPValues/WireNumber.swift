/// A non-negative integer as it arrives from a client: `Content-Length` and the feed's positions in
/// decimal, chunk sizes in hexadecimal (RFC 9112 §6.3, §7.1). Every number read off the wire goes
/// through this one type, a digit at a time (the framing reads a stream byte by byte) or from a
/// whole string (`parse`), and none of them can wrap: a value past `UInt64.max` stays "too large"
/// however many digits follow, and callers take it only through `value(atMost:)` or `parse(_:max:)`,
/// which refuse what passes their bound. Leading zeros add digits, never value.
public struct WireNumber: Sendable, Equatable {
    public enum Radix: UInt64, Sendable {
        case decimal = 10
        case hexadecimal = 16
    }

    public let radix: Radix
    @usableFromInline var current: UInt64 = 0
    @usableFromInline var digits = 0
    @usableFromInline var overflowed = false

    /// Digits read so far (leading zeros included).
    @inlinable public var digitCount: Int { digits }
    /// Its value passed `UInt64.max`: no bound a caller can ask for takes it.
    @inlinable public var isTooLarge: Bool { overflowed }

    @inlinable public init(radix: Radix) {
        self.radix = radix
    }

    /// Reads one more byte: false, and nothing changes, when it is not a digit of the radix.
    @inlinable public mutating func append(_ byte: UInt8) -> Bool {
        guard let digit = Self.digitValue(byte, radix: radix) else { return false }
        digits += 1
        guard !overflowed else { return true }
        let (times, overflow) = current.multipliedReportingOverflow(by: radix.rawValue)
        let (sum, carry) = times.addingReportingOverflow(digit)
        if overflow || carry { overflowed = true } else { current = sum }
        return true
    }

    /// The value, when there is at least one digit and it is at most `limit`.
    @inlinable public func value(atMost limit: UInt64) -> UInt64? {
        digits > 0 && !overflowed && current <= limit ? current : nil
    }

    /// The value as an `Int`, when there is at least one digit and it is at most `limit` (≥ 0).
    @inlinable public func intValue(atMost limit: Int) -> Int? {
        value(atMost: UInt64(max(0, limit))).map { Int($0) }
    }

    /// Whether the digits name a number above `limit` (too large for `UInt64` included).
    @inlinable public func exceeds(_ limit: UInt64) -> Bool {
        overflowed || current > limit
    }

    /// The value of `byte` as a digit of `radix`; nil when it is none (hexadecimal digits in either case).
    @inlinable public static func digitValue(_ byte: UInt8, radix: Radix) -> UInt64? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt64(byte &- UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f") where radix == .hexadecimal: UInt64(byte &- UInt8(ascii: "a") &+ 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F") where radix == .hexadecimal: UInt64(byte &- UInt8(ascii: "A") &+ 10)
        default: nil
        }
    }

    /// All of `bytes` as one number (`1*DIGIT`, no sign, no white space), at most `max`; nil
    /// otherwise. `canonical`: also nil for a leading zero (but "0" itself), so that each value has
    /// exactly one spelling (the feed's positions, as the server writes them).
    @inlinable public static func parse(
        _ bytes: some Collection<UInt8>, radix: Radix = .decimal, max: UInt64 = .max, canonical: Bool = false
    ) -> UInt64? {
        var number = WireNumber(radix: radix)
        for byte in bytes {
            guard number.append(byte) else { return nil }
        }
        if canonical, number.digitCount > 1, bytes.first == UInt8(ascii: "0") { return nil }
        return number.value(atMost: max)
    }

    /// `text` as `parse(_:radix:max:canonical:)` reads its UTF-8.
    @inlinable public static func parse(
        _ text: some StringProtocol, radix: Radix = .decimal, max: UInt64 = .max, canonical: Bool = false
    ) -> UInt64? {
        parse(text.utf8, radix: radix, max: max, canonical: canonical)
    }
}
