import Foundation
import HTTPValues
import TestSupport
import Testing

/// Issue 35: every number a client sends is read by `WireNumber`, checked here against a plain
/// big-integer oracle (digit arrays, compared by length and then digit by digit) and, where the
/// value fits, against the standard library's `UInt64(_:radix:)`: at 2^31, 2^32, 2^53, 2^63 and
/// 2^64 (±2), with and without leading zeros, and at random.
@Suite("WireNumber: the one checked reader of numbers on the wire, against a big-integer oracle")
struct WireNumberTests {
    /// A non-negative integer as most-significant-first digits in `radix`: the oracle.
    private struct BigDigits {
        var digits: [Int]
        let radix: Int

        init(_ value: UInt64, radix: Int) {
            self.radix = radix
            digits = String(value, radix: radix).map { Int(String($0), radix: radix)! }
        }

        init(digits: [Int], radix: Int) {
            self.radix = radix
            self.digits = digits
        }

        static func power(ofTwo exponent: Int, radix: Int) -> BigDigits {
            var number = BigDigits(1, radix: radix)
            for _ in 0..<exponent { number = number.adding(number) }
            return number
        }

        func adding(_ other: BigDigits) -> BigDigits {
            var result: [Int] = []
            var carry = 0
            let a = Array(digits.reversed()), b = Array(other.digits.reversed())
            for index in 0..<max(a.count, b.count) {
                let sum = (index < a.count ? a[index] : 0) + (index < b.count ? b[index] : 0) + carry
                result.append(sum % radix)
                carry = sum / radix
            }
            if carry > 0 { result.append(carry) }
            return BigDigits(digits: result.reversed(), radix: radix)
        }

        /// Self minus one (self > 0).
        func decremented() -> BigDigits {
            var result = Array(digits.reversed())
            var index = 0
            while result[index] == 0 {
                result[index] = radix - 1
                index += 1
            }
            result[index] -= 1
            var digits = Array(result.reversed())
            while digits.count > 1, digits[0] == 0 { digits.removeFirst() }
            return BigDigits(digits: digits, radix: radix)
        }

        /// Whether self ≤ other, by the digits alone (leading zeros stripped).
        func isAtMost(_ other: BigDigits) -> Bool {
            let a = Array(digits.drop(while: { $0 == 0 })), b = Array(other.digits.drop(while: { $0 == 0 }))
            if a.count != b.count { return a.count < b.count }
            for (x, y) in zip(a, b) where x != y { return x < y }
            return true
        }

        /// Its spelling, hexadecimal letters in both cases.
        var text: String { digits.enumerated().map { String($1, radix: radix, uppercase: $0 % 2 == 1) }.joined() }
    }

    private static let limits: [UInt64] = [0, 1 << 20, 1 << 32, UInt64(Int.max), .max]

    /// Checks `text` (digits, maybe with leading zeros) against the oracle, whole and digit by digit.
    private func check(_ text: String, _ oracle: BigDigits, radix: WireNumber.Radix, sourceLocation: SourceLocation = #_sourceLocation) {
        let fitsUInt64 = oracle.isAtMost(BigDigits(.max, radix: oracle.radix))
        let standard = UInt64(text, radix: oracle.radix)
        #expect((standard != nil) == fitsUInt64, "\(text): the standard library and the oracle disagree", sourceLocation: sourceLocation)
        var streamed = WireNumber(radix: radix)
        var allDigits = true
        for byte in text.utf8 where !streamed.append(byte) { allDigits = false }
        #expect(allDigits, "\(text)", sourceLocation: sourceLocation)
        #expect(streamed.digitCount == text.utf8.count, sourceLocation: sourceLocation)
        #expect(streamed.isTooLarge == !fitsUInt64, "\(text)", sourceLocation: sourceLocation)
        for limit in Self.limits {
            let expected = oracle.isAtMost(BigDigits(limit, radix: oracle.radix)) ? standard : nil
            #expect(
                WireNumber.parse(text, radix: radix, max: limit) == expected, "\(text) at most \(limit)", sourceLocation: sourceLocation)
            #expect(streamed.value(atMost: limit) == expected, "\(text) at most \(limit), digit by digit", sourceLocation: sourceLocation)
            #expect(streamed.exceeds(limit) == (expected == nil), "\(text) exceeds \(limit)", sourceLocation: sourceLocation)
        }
        let canonical = text == "0" || text.first != "0"
        #expect(
            WireNumber.parse(text, radix: radix, canonical: true) == (canonical ? standard : nil), "\(text), canonical",
            sourceLocation: sourceLocation)
    }

    @Test("2^31, 2^32, 2^53, 2^63 and 2^64, each ±2, with 0, 1, 5 and 20 leading zeros, in decimal and in hexadecimal")
    func boundaries() {
        for radix in [WireNumber.Radix.decimal, .hexadecimal] {
            let base = Int(radix.rawValue)
            for exponent in [31, 32, 53, 63, 64] {
                let power = BigDigits.power(ofTwo: exponent, radix: base)
                let two = BigDigits(2, radix: base)
                var values = [power.decremented().decremented(), power.decremented(), power]
                values += [power.adding(BigDigits(1, radix: base)), power.adding(two)]
                for value in values {
                    for zeros in [0, 1, 5, 20] {
                        let text = String(repeating: "0", count: zeros) + value.text
                        check(text, value, radix: radix)
                    }
                }
            }
        }
    }

    @Test("the issue's spellings: 2^63 and more in hexadecimal are too large, never negative; 18 digits with leading zeros are 17")
    func issueSpellings() {
        for text in ["ffffffffffffffff", "8000000000000000", "fffffffffffffff0", "7fffffffffffffff0", "10000000000000000"] {
            #expect(WireNumber.parse(text, radix: .hexadecimal, max: UInt64(Int.max)) == nil, "\(text)")
        }
        #expect(WireNumber.parse("7fffffffffffffff", radix: .hexadecimal, max: UInt64(Int.max)) == UInt64(Int.max))
        #expect(WireNumber.parse("000000000000000011", radix: .hexadecimal) == 17)
        #expect(WireNumber.parse("99999999999999999999") == nil)
        #expect(WireNumber.parse("18446744073709551615") == .max)
        #expect(WireNumber.parse("18446744073709551616") == nil)
    }

    @Test("anything but digits is no number: signs, white space, empty, other bases' digits, non-ASCII")
    func nonDigits() {
        for text in ["", "+1", "-0", " 1", "1 ", "1_000", "0x11", "١٢", "１"] {
            #expect(WireNumber.parse(text) == nil, "\(text.debugDescription)")
            #expect(WireNumber.parse(text, radix: .hexadecimal) == nil, "\(text.debugDescription)")
        }
        #expect(WireNumber.parse("ab") == nil)
        #expect(WireNumber.parse("1e3") == nil)
        #expect(WireNumber.parse("1e3", radix: .hexadecimal) == 0x1E3)
        #expect(WireNumber.parse("aB", radix: .hexadecimal) == 0xAB)
        #expect(WireNumber.parse("g", radix: .hexadecimal) == nil)
        var number = WireNumber(radix: .decimal)
        let appended = number.append(UInt8(ascii: "a"))
        #expect(!appended)
        #expect(number.digitCount == 0)
        #expect(number.value(atMost: .max) == nil)
    }

    @Test("random digit strings of 1 to 45 digits with random leading zeros agree with the oracle (the seed is printed)")
    func random() {
        let seed = testSeed("WireNumberTests")
        var generator = SplitMix64(seed: seed)
        for _ in 0..<3000 {
            let base = Bool.random(using: &generator) ? 10 : 16
            let count = Int.random(in: 1...45, using: &generator)
            var digits = (0..<count).map { _ in Int.random(in: 0..<base, using: &generator) }
            if Int.random(in: 0..<4, using: &generator) == 0 {
                digits = Array(repeating: 0, count: Int.random(in: 1...20, using: &generator)) + digits
            }
            let value = BigDigits(digits: digits, radix: base)
            check(value.text, value, radix: base == 10 ? .decimal : .hexadecimal)
        }
    }
}
