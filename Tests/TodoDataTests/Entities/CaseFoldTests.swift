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

    @Test func composedAndDecomposedTextFoldToOneKey() {
        #expect(CaseFold.folded("caf\u{E9}") == CaseFold.folded("cafe\u{301}"))
        #expect(Array(CaseFold.folded("CAFE\u{301}").utf8) == Array("caf\u{E9}".utf8))
    }
}
