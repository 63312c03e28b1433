/// A `Duration` in whole units, rounded toward zero: how the access log, the metrics and the log
/// lines read durations. (`milliseconds` is declared beside the journal, which reads it too.)
extension Duration {
    /// Whole microseconds.
    @inline(__always)
    package var wholeMicroseconds: Int64 {
        // `components` once: each read divides the 128-bit count of attoseconds.
        let (seconds, attoseconds) = components
        return seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    }

    /// Whole nanoseconds.
    @inline(__always)
    package var wholeNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}

/// Numbers as the log lines write them: decimal integers, and durations as milliseconds with
/// three decimals (`12.345`), the one duration format of the logs.
public enum DecimalText {
    /// `value` (0 or more) in decimal.
    @inline(__always)
    package static func appendDecimal(_ value: Int64, to line: inout [UInt8]) {
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        var count = 0
        var rest = value.magnitude
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[23 - count] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
                count += 1
            } while rest > 0
            line.append(contentsOf: buffer[(24 - count)...])
        }
    }

    /// `microseconds` (0 or more) as milliseconds with three decimals: `12.345`.
    @inline(__always)
    package static func appendMilliseconds(microseconds: Int64, to line: inout [UInt8]) {
        appendDecimal(microseconds / 1000, to: &line)
        line.append(UInt8(ascii: "."))
        let fraction = Int(microseconds % 1000)
        line.append(UInt8(ascii: "0") + UInt8(fraction / 100))
        line.append(UInt8(ascii: "0") + UInt8(fraction / 10 % 10))
        line.append(UInt8(ascii: "0") + UInt8(fraction % 10))
    }

    /// `duration` (0 or more) as milliseconds with three decimals: `12.345`.
    public static func milliseconds(_ duration: Duration) -> String {
        var text: [UInt8] = []
        appendMilliseconds(microseconds: max(0, duration.wholeMicroseconds), to: &text)
        return String(decoding: text, as: UTF8.self)
    }
}
