import Testing
@testable import TodoServer

@Suite("TitleKey: sort and search keys prepared once per change")
struct TitleKeyTests {
    /// The title order as the list had it before keys were prepared: lowercased strings compared
    /// per comparison, then the titles, then createdAt and id.
    private static func referenceOrder(_ a: Todo, _ b: Todo, descending: Bool) -> Bool {
        let x = a.title.lowercased(), y = b.title.lowercased()
        if x != y { return descending ? x > y : x < y }
        if a.title != b.title { return descending ? a.title > b.title : a.title < b.title }
        return (a.createdAt, a.id) < (b.createdAt, b.id)
    }

    /// Pieces that make case, canonical equivalence and non-ASCII ordering interesting.
    private static let pieces = [
        "a", "A", "b", "B", "z", "Z", " ", "1", "é", "e\u{301}", "É", "E\u{301}", "ß", "SS", "ẞ", "İ", "ı", "K", "\u{212A}",
        "Å", "\u{212B}", "A\u{30A}", "ﬃ", "Σ", "σ", "ς", "😀", "漢", "\u{1E0A}\u{323}", "D\u{323}\u{307}", "\u{301}", "-",
    ]

    private static func randomTitle(_ generator: inout SplitMix) -> String {
        (0..<Int.random(in: 1...6, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
    }

    @Test("sort=title orders exactly as comparing lowercased titles did, on random Unicode titles")
    func orderMatchesReference() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("TitleKeyTests.orderMatchesReference seed \(seed)")
        var generator = SplitMix(seed)
        let todos = (0..<400).map { index in
            makeTodo(
                "id-\(Int.random(in: 0...999, using: &generator))-\(index)", title: Self.randomTitle(&generator),
                created: "2026-11-22T10:00:0\(Int.random(in: 0...2, using: &generator)).000Z")
        }
        for descending in [false, true] {
            let sort = TodoSort(.title, descending: descending)
            let expected = todos.sorted { Self.referenceOrder($0, $1, descending: descending) }.map(\.id)
            #expect(todos.sorted(by: sort.areInIncreasingOrder).map(\.id) == expected, "seed \(seed), descending \(descending)")
            for _ in 0..<2000 {
                let a = todos.randomElement(using: &generator)!, b = todos.randomElement(using: &generator)!
                #expect(sort.areInIncreasingOrder(a, b) == Self.referenceOrder(a, b, descending: descending), "seed \(seed): '\(a.title)' '\(b.title)'")
            }
        }
    }

    @Test("q= finds exactly what lowercased contains found, on random Unicode titles and needles")
    func searchMatchesReference() {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("TitleKeyTests.searchMatchesReference seed \(seed)")
        var generator = SplitMix(seed)
        let todos = (0..<300).map { makeTodo("t\($0)", title: Self.randomTitle(&generator)) }
        let plain = ["a", "ab", "Z", "z z", "1-", "AAAA", " ", "b1"]
        let needles = plain + (0..<60).map { _ in Self.randomTitle(&generator) }
        for needle in needles {
            let query = TodoQuery(titleContains: needle)
            let expected = todos.filter { $0.title.lowercased().contains(needle.lowercased()) }.map(\.id)
            #expect(todos.filter(query.includes).map(\.id) == expected, "seed \(seed), needle '\(needle)'")
        }
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
