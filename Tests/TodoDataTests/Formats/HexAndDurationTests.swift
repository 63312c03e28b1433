import Testing

@testable import TodoData

@Suite("Hex: the one writer and reader of hexadecimal digits")
struct HexTests {
    private func written(_ value: UInt64, digits: Int, uppercase: Bool = false) -> String {
        var buffer = [UInt8](repeating: UInt8(ascii: "?"), count: digits + 1)
        buffer.withUnsafeMutableBufferPointer { Hex.write(value, digits: digits, uppercase: uppercase, to: $0.baseAddress!) }
        return String(decoding: buffer, as: UTF8.self)
    }

    @Test("digits: 0–9 then a–f, or A–F; only the low four bits count")
    func digits() {
        #expect((0..<16).map { Hex.digit(UInt64($0)) } == Array("0123456789abcdef".utf8))
        #expect((0..<16).map { Hex.digit(UInt64($0), uppercase: true) } == Array("0123456789ABCDEF".utf8))
        #expect(Hex.digit(0x1A) == UInt8(ascii: "a"))
        #expect(Hex.digit(UInt64.max) == UInt8(ascii: "f"))
    }

    @Test("write: exactly the low `digits` digits, most significant first, zero-padded, nothing past them")
    func write() {
        #expect(written(0x1F, digits: 4) == "001f?")
        #expect(written(0xDEAD_BEEF_0123_4567, digits: 16) == "deadbeef01234567?")
        #expect(written(0xDEAD_BEEF_0123_4567, digits: 4, uppercase: true) == "4567?")
        #expect(written(0, digits: 1) == "0?")
    }

    @Test("value: either case reads, anything else is nil")
    func value() {
        #expect(
            Array("0123456789abcdefABCDEF".utf8).map { Hex.value(of: $0) }
                == [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 10, 11, 12, 13, 14, 15])
        #expect(Array("/:@G`g x".utf8).allSatisfy { Hex.value(of: $0) == nil })
    }
}

@Suite("Durations: whole units and the logs' millisecond text")
struct DurationFormatTests {
    @Test("whole units round toward zero")
    func units() {
        let duration = Duration.seconds(2) + .nanoseconds(345_678_901)
        #expect(duration.wholeMicroseconds == 2_345_678)
        #expect(duration.wholeNanoseconds == 2_345_678_901)
        #expect(Duration.nanoseconds(999).wholeMicroseconds == 0)
    }

    @Test(
        "milliseconds with three decimals, zero-padded; below zero writes 0.000",
        arguments: [
            (Duration.zero, "0.000"), (.microseconds(7), "0.007"), (.microseconds(1_050), "1.050"),
            (.nanoseconds(12_345_999), "12.345"), (.seconds(3), "3000.000"), (.microseconds(-5), "0.000"),
        ])
    func milliseconds(duration: Duration, text: String) {
        #expect(DecimalText.milliseconds(duration) == text)
    }

    @Test("decimal integers")
    func decimals() {
        var line: [UInt8] = []
        for value: Int64 in [0, 7, 10, 1_234_567_890_123] {
            DecimalText.appendDecimal(value, to: &line)
            line.append(UInt8(ascii: " "))
        }
        #expect(String(decoding: line, as: UTF8.self) == "0 7 10 1234567890123 ")
    }
}
