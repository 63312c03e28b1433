import Foundation
import TestSupport
import Testing

@testable import TodoData

@Suite("ByteSearch: the search arena's byte search", .tags(.singleThreaded))
struct ByteSearchTests {
    private static func naive(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard needle.count <= haystack.count else { return false }
        return (0...(haystack.count - needle.count)).contains { Array(haystack[$0..<($0 + needle.count)]) == needle }
    }

    @Test("the folding search finds what a naive search of the lower-cased text finds, over all printable ASCII")
    func foldingMatchesNaive() {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("ByteSearchTests.foldingMatchesNaive seed \(seed)")
        var generator = SplitMix64(seed: seed)
        // Every printable byte, with the neighbours of the capitals (@ [ ` {) weighted up.
        let printable = Array(UInt8(0x20)...UInt8(0x7E))
        let alphabet = printable + Array("@[`{AaZz".utf8) + Array("@[`{AaZz".utf8)
        func lower(_ byte: UInt8) -> UInt8 { (0x41...0x5A).contains(byte) ? byte | 0x20 : byte }
        var found = 0
        for _ in 0..<20000 {
            let haystack = (0..<Int.random(in: 0...70, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }
            let needle = (0..<Int.random(in: 1...3, using: &generator)).map { _ in lower(alphabet.randomElement(using: &generator)!) }
            let expected = Self.naive(haystack.map(lower), needle)
            let actual = haystack.withUnsafeBytes { text in needle.withUnsafeBytes { ByteSearch.containsFoldingASCII(text, $0) } }
            #expect(actual == expected, "seed \(seed): \(haystack) \(needle)")
            if expected { found += 1 }
        }
        #expect(found > 500)
        // Each printable byte against each, at a lane inside the 16-byte step and in the tail.
        for byte in printable {
            for wanted in printable.map(lower) {
                let text = Array(repeating: UInt8(ascii: "."), count: 20) + [byte] + Array(repeating: UInt8(ascii: "."), count: 20)
                let actual = text.withUnsafeBytes { text in [wanted].withUnsafeBytes { ByteSearch.containsFoldingASCII(text, $0) } }
                #expect(actual == (lower(byte) == wanted || wanted == UInt8(ascii: ".")), "byte \(byte) wanted \(wanted)")
            }
        }
    }

    @Test("a needle at the very start, the very end, across a step, or longer than the text")
    func edges() {
        let text = Array("0123456789abcdefghijklmnopqrstuvwxyZ".utf8)
        func contains(_ needle: String) -> Bool {
            text.withUnsafeBytes { text in Array(needle.utf8).withUnsafeBytes { ByteSearch.containsFoldingASCII(text, $0) } }
        }
        #expect(contains("0"))
        #expect(contains("01"))
        #expect(contains("xyz"))
        #expect(contains("z"))
        #expect(contains("defgh"))
        #expect(contains("fghij"))
        #expect(!contains("zy"))
        #expect(!contains("0123456789abcdefghijklmnopqrstuvwxyz!"))
        #expect(contains("0123456789abcdefghijklmnopqrstuvwxyz"))
        #expect(!contains("fgx"))
    }
}
