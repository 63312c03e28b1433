import TestSupport
import Testing

@testable import EventHTTP

@Suite("EventHTTP: the response writer's check for NUL, CR and LF", .tags(.singleThreaded))
struct JoinedHeadCheckTests {
    /// The reference: one byte at a time.
    private func byteByByte(_ bytes: [UInt8]) -> Bool { bytes.contains { $0 == 0 || $0 == 0x0A || $0 == 0x0D } }

    private func check(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { HTTPResponseWriter.containsNulOrLineBreak($0) }
    }

    @Test("every byte value at every position of values up to 24 bytes, among visible ASCII and tabs")
    func everyByteEverywhere() {
        #expect(check([]) == false)
        // Visible ASCII around the byte, and visible ASCII with tabs (below 0x0E like CR and LF, and allowed).
        for withTabs in [false, true] {
            for length in 1...24 {
                for position in 0..<length {
                    for value in UInt8.min...UInt8.max {
                        var bytes = (0..<length).map { withTabs && $0 % 3 == 0 ? UInt8(0x09) : UInt8(ascii: "a") &+ UInt8($0 % 26) }
                        bytes[position] = value
                        let expected = value == 0 || value == 0x0A || value == 0x0D
                        #expect(check(bytes) == expected, "length \(length), position \(position), byte \(value)")
                        #expect(byteByByte(bytes) == expected)
                    }
                }
            }
        }
    }

    @Test("values that only look like a break to the word test pass: 0x0B, 0x0C, 0x8E, 0x0E and a tab in one word")
    func nearMisses() {
        #expect(check([0x0B, 0x0C, 0x8E, 0x0E, 0x09, 0x7F, 0xFF, 0x20]) == false)
        #expect(check(Array("Tue, 01 Jan 2030 00:00:00 GMT".utf8)) == false)
        #expect(check(Array("x\r\nSet-Cookie: evil=1".utf8)) == true)
        #expect(check(Array("a\u{0}b".utf8)) == true)
    }
}
