import Foundation
import TestSupport
import Testing

@testable import TodoData

/// `CaseFold` against Unicode's full case folding (`CaseFolding.txt`, statuses C and F), on the
/// pairs lowercasing gets wrong and on ordinary ones.
@Suite("CaseFold: Unicode case folding without Foundation")
struct CaseFoldTests {
    @Test(
        "folds as CaseFolding.txt says",
        arguments: [
            ("ΟΔΟΣ", "οδοσ"), ("οδος", "οδοσ"), ("Straße", "strasse"), ("STRASSE", "strasse"), ("ẞ", "ss"),
            ("ﬁle", "file"), ("\u{212A}elvin", "kelvin"), ("µ", "μ"), ("ſ", "s"), ("İ", "i\u{307}"), ("ı", "ı"),
            ("ǅ", "ǆ"), ("ꭰ", "Ꭰ"), ("Ꭰ", "Ꭰ"), ("ŉ", "ʼn"), ("Café", "café"), ("CAFE\u{301}", "café"), ("ΐ", "ΐ"),
            ("HELLO world", "hello world"), ("漢字", "漢字"), ("😀", "😀"),
        ])
    func folds(text: String, folded: String) {
        #expect(Array(CaseFold.folded(text).unicodeScalars) == Array(TitleKey.normalized(folded).unicodeScalars))
    }

    /// The hand-written ASCII lowering against the standard library's `lowercased()`: every
    /// ASCII byte alone, the edges of the letter ranges, and random texts (seed printed;
    /// `CASEFOLD_SEED` repeats a run).
    @Test func asciiLoweringMatchesTheStandardLibrary() {
        let seed = ProcessInfo.processInfo.environment["CASEFOLD_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        print("CaseFoldTests.asciiLoweringMatchesTheStandardLibrary seed \(seed)")
        var random = SplitMix64(seed: seed)
        var texts =
            (0..<128).map { String(UnicodeScalar(UInt8($0))) } + ["", "@AZ[`az{", "A thirty character title here!", "already lower"]
        for _ in 0..<2_000 {
            let length = Int.random(in: 0...80, using: &random)
            texts.append(String(decoding: (0..<length).map { _ in UInt8.random(in: 0...127, using: &random) }, as: UTF8.self))
        }
        for text in texts {
            let lowered = CaseFold.asciiLowercased(text)
            #expect(Array(lowered.utf8) == Array(text.lowercased().utf8), "seed \(seed): \(Array(text.utf8))")
        }
        // No upper-case letter: the text itself, its storage shared (no copy made).
        let lower = String(decoding: Array("no capitals here, 42 of them!".utf8), as: UTF8.self)
        let storage = { (text: String) in text.utf8.withContiguousStorageIfAvailable { UInt(bitPattern: $0.baseAddress) } }
        #expect(storage(CaseFold.asciiLowercased(lower)) == storage(lower))
    }

    @Test func composedAndDecomposedTextFoldToOneKey() {
        #expect(CaseFold.folded("caf\u{E9}") == CaseFold.folded("cafe\u{301}"))
        #expect(Array(CaseFold.folded("CAFE\u{301}").utf8) == Array("caf\u{E9}".utf8))
    }
}
