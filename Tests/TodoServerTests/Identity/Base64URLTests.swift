import Foundation
import TestSupport
import Testing

@testable import TodoServer

/// The strict base64url decoder against Foundation's base64 decoder (`Data(base64Encoded:)`), on
/// seeded random inputs (the seed is printed; `TODO_TEST_SEED` repeats it). Foundation reads
/// padded standard base64, so each input is translated (`-_` to `+/`, padding added); where
/// Foundation accepts, the strict decoder must give the same bytes if the text is canonical (it
/// re-encodes to itself) and refuse it otherwise.
@Suite("Base64URL: strict decoding against Foundation's", .tags(.singleThreaded))
struct Base64URLTests {
    private static func seed(_ name: String) -> UInt64 { testSeed("Base64URLTests.\(name)") }

    /// What the strict decoder must answer for `text`, by way of Foundation.
    private static func expected(_ text: [UInt8]) -> [UInt8]? {
        guard !text.contains(where: { [UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "=")].contains($0) }) else { return nil }
        var standard = String(decoding: text, as: UTF8.self).replacingOccurrences(of: "-", with: "+").replacingOccurrences(
            of: "_", with: "/")
        guard standard.utf8.count % 4 != 1 else { return nil }
        standard += String(repeating: "=", count: (4 - standard.utf8.count % 4) % 4)
        guard let data = Data(base64Encoded: standard) else { return nil }
        return data.base64EncodedString() == standard ? [UInt8](data) : nil
    }

    @Test("random bytes: Foundation's encoding, unpadded and url-safe, decodes to them (10,000 inputs)")
    func roundTrips() {
        var random = SplitMix64(seed: Self.seed("roundTrips"))
        for _ in 0..<10_000 {
            let bytes = (0..<Int.random(in: 0...70, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            let text = Data(bytes).base64EncodedString().replacingOccurrences(of: "=", with: "").replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_")
            #expect(Base64URL.decode(text.utf8) == bytes, "\(text)")
        }
    }

    @Test("random texts over the alphabet and a few strangers: the same answer as Foundation (50,000 inputs)")
    func randomTextsAgree() {
        var random = SplitMix64(seed: Self.seed("randomTexts"))
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        let strangers = Array("+/= .\n\0é".utf8)
        var accepted = 0, refused = 0
        for _ in 0..<50_000 {
            let text = (0..<Int.random(in: 0...12, using: &random)).map { _ in
                Int.random(in: 0..<40, using: &random) == 0
                    ? strangers.randomElement(using: &random)! : alphabet.randomElement(using: &random)!
            }
            let expected = Self.expected(text)
            if expected == nil { refused += 1 } else { accepted += 1 }
            #expect(Base64URL.decode(text) == expected, "\(String(decoding: text, as: UTF8.self).debugDescription)")
        }
        #expect(accepted > 5000 && refused > 5000, "accepted \(accepted), refused \(refused)")
    }

    @Test(
        "refusals, one by one",
        arguments: ["QQ==", "QQ=", "Q", "QR", "QUF", "QUJ", "+A", "/A", "QUJD\n", " QQ", "QQ QQ", "QUJDR"])
    func refusals(text: String) {
        #expect(Base64URL.decode(text.utf8) == nil)
    }

    @Test("the canonical spellings")
    func canonical() {
        #expect(Base64URL.decode("".utf8) == [])
        #expect(Base64URL.decode("QQ".utf8) == [0x41])
        #expect(Base64URL.decode("QUI".utf8) == [0x41, 0x42])
        #expect(Base64URL.decode("QUJD".utf8) == [0x41, 0x42, 0x43])
        #expect(Base64URL.decode("-_8".utf8) == [0xFB, 0xFF])
    }
}
