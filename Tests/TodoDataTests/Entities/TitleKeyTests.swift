import Glibc
import TestSupport
import Testing

@testable import TodoData
@testable import TodoDataTestSupport

@Suite("TitleKey: sort and search keys prepared once per change")
struct TitleKeyTests {
    /// The title order as the list had it before keys were prepared (case-folded strings compared
    /// per comparison, then the titles, then createdAt and id), on the titles' NFC forms. On other
    /// forms Swift's `<` is not an order at all: `"e\u{301}" < "\u{E9}a"` and its converse are both
    /// false although `"e\u{301}" == "\u{E9}"` and `"\u{E9}" < "\u{E9}a"` (Swift 6.3.1), so the
    /// old sort could place canonically equivalent titles apart; the keys compare NFC bytes instead.
    private static func referenceOrder(_ a: Todo, _ b: Todo, descending: Bool) -> Bool {
        let x = fold(a.title), y = fold(b.title)
        if x != y { return descending ? x > y : x < y }
        let p = nfc(a.title), q = nfc(b.title)
        if p != q { return descending ? p > q : p < q }
        return (a.createdAt, a.id) < (b.createdAt, b.id)
    }

    /// `TITLE_KEY_SEED` replays a run; otherwise a fresh seed (printed by each test).
    private static func seed() -> UInt64 {
        getenv("TITLE_KEY_SEED").flatMap { UInt64(String(cString: $0)) } ?? UInt64.random(in: 0...UInt64.max)
    }

    /// Whether `needle`'s characters (grapheme clusters) appear in a row in `haystack`: what the
    /// standard library's `String.contains` does. Written out because in this test target
    /// Foundation's `contains` (a search by code units, which finds a lone combining mark inside a
    /// cluster) is what `.contains` resolves to, and the server no longer links Foundation.
    private static func containsCharacters(_ haystack: String, _ needle: String) -> Bool {
        let h = Array(haystack), n = Array(needle)
        guard !n.isEmpty else { return true }
        guard n.count <= h.count else { return false }
        return (0...(h.count - n.count)).contains { start in h[start..<(start + n.count)].elementsEqual(n) }
    }

    private static func nfc(_ string: String) -> String { String(decoding: string._nfcCodeUnits, as: UTF8.self) }

    /// Unicode full case folding of `pieces`, from `CaseFolding.txt` (statuses C and F) where it
    /// differs from lower case, written out here so that the reference does not use `CaseFold`.
    private static let foldings: [Unicode.Scalar: String] = [
        "ß": "ss", "ẞ": "ss", "İ": "i\u{307}", "ﬃ": "ffi", "ς": "σ", "\u{212A}": "k", "\u{212B}": "å",
    ]

    /// The title case-folded (the table, else lower case), in NFC.
    private static func fold(_ string: String) -> String {
        nfc(nfc(string).unicodeScalars.map { foldings[$0] ?? String($0).lowercased() }.joined())
    }

    /// Pieces that make case, canonical equivalence and non-ASCII ordering interesting.
    private static let pieces = [
        "a", "A", "b", "B", "z", "Z", " ", "1", "é", "e\u{301}", "É", "E\u{301}", "ß", "SS", "ẞ", "İ", "ı", "K", "\u{212A}",
        "Å", "\u{212B}", "A\u{30A}", "ﬃ", "Σ", "σ", "ς", "😀", "漢", "\u{1E0A}\u{323}", "D\u{323}\u{307}", "\u{301}", "-",
    ]

    private static func randomTitle(_ generator: inout SplitMix64) -> String {
        (0..<Int.random(in: 1...6, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
    }

    @Test("sort=title orders as comparing the case-folded titles (NFC), on random Unicode titles")
    func orderMatchesReference() throws {
        let seed = Self.seed()
        print("TitleKeyTests.orderMatchesReference seed \(seed)")
        var generator = SplitMix64(seed: seed)
        let todos = (0..<400).map { index in
            makeTodo(
                "id-\(Int.random(in: 0...999, using: &generator))-\(index)", title: Self.randomTitle(&generator),
                created: "2026-11-22T10:00:0\(Int.random(in: 0...2, using: &generator)).000Z")
        }
        for descending in [false, true] {
            let sort = TodoSort(.title, descending: descending)
            let expected = todos.sorted { Self.referenceOrder($0, $1, descending: descending) }
            let actual = todos.sorted(by: sort.areInIncreasingOrder)
            let first = actual.indices.first { actual[$0].id != expected[$0].id }
            #expect(
                first == nil,
                "seed \(seed), descending \(descending): at \(first ?? -1) '\(first.map { actual[$0].title.unicodeScalars.map { String($0.value, radix: 16) } } ?? [])' where '\(first.map { expected[$0].title.unicodeScalars.map { String($0.value, radix: 16) } } ?? [])' was"
            )
            for _ in 0..<2000 {
                let a = todos.randomElement(using: &generator)!, b = todos.randomElement(using: &generator)!
                #expect(
                    sort.areInIncreasingOrder(a, b) == Self.referenceOrder(a, b, descending: descending),
                    "seed \(seed): '\(a.title)' '\(b.title)'")
            }
        }
    }

    @Test("q= finds what case-folded contains finds (on NFC forms), on random Unicode titles and needles")
    func searchMatchesReference() {
        let seed = Self.seed()
        print("TitleKeyTests.searchMatchesReference seed \(seed)")
        var generator = SplitMix64(seed: seed)
        let todos = (0..<300).map { makeTodo("t\($0)", title: Self.randomTitle(&generator)) }
        let plain = ["a", "ab", "Z", "z z", "1-", "AAAA", " ", "b1"]
        let needles = plain + (0..<60).map { _ in Self.randomTitle(&generator) }
        for needle in needles {
            let query = TodoQuery(titleContains: needle)
            // Case-folded contains, on NFC forms: canonically equivalent titles match alike.
            let expected = Set(todos.filter { Self.containsCharacters(Self.fold($0.title), Self.fold(needle)) }.map(\.id))
            let actual = Set(todos.filter(query.includes).map(\.id))
            let wrong = todos.filter { expected.contains($0.id) != actual.contains($0.id) }.map {
                $0.title.unicodeScalars.map { String($0.value, radix: 16) }
            }
            #expect(wrong.isEmpty, "seed \(seed), needle \(needle.unicodeScalars.map { String($0.value, radix: 16) }): \(wrong.prefix(3))")
        }
    }

    @Test("the byte search (Horspool) finds what a character search finds, on random ASCII over a small alphabet")
    func asciiSearch() {
        let seed = Self.seed()
        print("TitleKeyTests.asciiSearch seed \(seed)")
        var generator = SplitMix64(seed: seed)
        let alphabet = Array("abAB ~")
        func random(_ lengths: ClosedRange<Int>) -> String {
            String((0..<Int.random(in: lengths, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
        }
        let todos = (0..<200).map { makeTodo("t\($0)", title: "x" + random(0...40)) }
        for _ in 0..<300 {
            let needle = random(1...7)
            let query = TodoQuery(titleContains: needle)
            let expected = todos.filter { $0.title.lowercased().contains(needle.lowercased()) }.map(\.id)
            #expect(todos.filter(query.includes).map(\.id) == expected, "seed \(seed), needle '\(needle)'")
        }
        #expect(TitleSearch("ab").shifts?[Int(UInt8(ascii: "a"))] == 1)
        #expect(TitleSearch("ab").shifts?[Int(UInt8(ascii: "b"))] == 2)
        #expect(TitleSearch("é").shifts == nil)
    }

    @Test("the key follows the title through every change, and equal spellings share one key")
    func followsTitle() {
        var todo = makeTodo("a", title: "Buy MILK")
        #expect(todo.titleKey.folded == "buy milk")
        #expect(todo.titleKey.isPlainASCII)
        todo.title = "Caf\u{E9}"
        #expect(todo.titleKey == TitleKey("Cafe\u{301}"))
        #expect(Array(todo.titleKey.folded.utf8) == Array("caf\u{E9}".utf8))
        #expect(!todo.titleKey.isPlainASCII)
        #expect(TodoQuery(titleContains: "FÉ").includes(todo))
        #expect(!TodoQuery(titleContains: "milk").includes(todo))
        todo.title = "tab\there"
        #expect(!todo.titleKey.isPlainASCII)
    }
}
