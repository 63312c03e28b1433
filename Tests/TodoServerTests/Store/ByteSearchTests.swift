import Foundation
import Testing
@testable import TodoServer

@Suite("ByteSearch: the title index's byte search")
struct ByteSearchTests {
    private static func naive(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard needle.count <= haystack.count else { return false }
        return (0...(haystack.count - needle.count)).contains { Array(haystack[$0..<($0 + needle.count)]) == needle }
    }

    @Test("finds what a naive search finds, at every offset around the 16-byte steps, on random bytes")
    func matchesNaive() {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("ByteSearchTests.matchesNaive seed \(seed)")
        var generator = SplitMix64(seed: seed)
        let alphabet: [UInt8] = Array("abcab ".utf8) + [0xC3, 0xA9]
        var found = 0
        for _ in 0..<20000 {
            let haystack = (0..<Int.random(in: 0...70, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }
            let needle = (0..<Int.random(in: 1...6, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }
            let expected = Self.naive(haystack, needle)
            let actual = haystack.withUnsafeBytes { text in needle.withUnsafeBytes { ByteSearch.contains(text, $0) } }
            #expect(actual == expected, "seed \(seed): \(haystack) \(needle)")
            if expected { found += 1 }
        }
        #expect(found > 1000)
    }

    @Test("a needle at the very start, the very end, across a step, or longer than the text")
    func edges() {
        let text = Array("0123456789abcdefghijklmnopqrstuvwxyz".utf8)
        func contains(_ needle: String) -> Bool {
            text.withUnsafeBytes { text in Array(needle.utf8).withUnsafeBytes { ByteSearch.contains(text, $0) } }
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
