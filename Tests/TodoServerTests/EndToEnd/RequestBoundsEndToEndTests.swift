import Foundation
import TestSupport
import Testing

@testable import TodoDataTestSupport
@testable import TodoServer

@Suite("End to end: bounded titles, prepared sort and search keys")
struct RequestBoundsEndToEndTests {
    private let json = [("Content-Type", "application/json")]
    /// Moved on by hand: to-dos created a millisecond apart.
    let clock = FakeClock("2026-11-22T10:00:00.000Z")
    let server: TestServer

    init() throws { server = try TestServer(clock: clock) }

    @Test("a title over 500 Unicode scalars is 422 however few characters it shows; nothing is stored")
    func titleScalarLimit() async throws {
        // One grapheme cluster, a megabyte of UTF-8: "a" and 500,000 combining acute accents.
        let megabyte = "a" + String(repeating: "\u{301}", count: 500_000)
        let expected = "must be at most 500 characters (Unicode scalars, so at most 2000 bytes of UTF-8)"
        for title in [megabyte, "a" + String(repeating: "\u{301}", count: 500), String(repeating: "x", count: 501)] {
            let answer = try await server.request("POST", "/todos", headers: json, body: #"{"title":"\#(title)"}"#)
            #expect(answer.status == 422)
            #expect(answer.header("Content-Type") == "application/problem+json")
            let errors = try #require(answer.object["errors"] as? [[String: String]])
            #expect(errors == [["field": "title", "message": expected]])
        }
        let longest = String(repeating: "😀", count: 500)  // 500 scalars, 2,000 bytes
        let stored = try await server.request("POST", "/todos", headers: json, body: #"{"title":"\#(longest)"}"#)
        #expect(stored.status == 201)
        #expect(stored.object["title"] as? String == longest)
        let path = "/todos/\(try #require(stored.object["id"] as? String))"
        #expect(try await server.request("PATCH", path, headers: json, body: #"{"title":"\#(longest)!"}"#).status == 422)
        #expect(try await server.request("GET", "/todos").array.map { $0["title"] as? String } == [longest])
    }

    @Test("control characters inside a title are 422 naming the field and the code point")
    func titleControlCharacters() async throws {
        let cases: [(String, String)] = [
            (#"tab\there"#, "U+0009 at character 4"), (#"line\nbreak"#, "U+000A at character 5"),
            (#"nul\u0000"#, "U+0000 at character 4"), ("del\u{7F}x", "U+007F at character 4"),
            ("c1\u{85}x", "U+0085 at character 3"), ("c1\u{9F}x", "U+009F at character 3"),
        ]
        for (title, found) in cases {
            let answer = try await server.request("POST", "/todos", headers: json, body: #"{"title":"\#(title)"}"#)
            #expect(answer.status == 422, "\(title)")
            let errors = try #require(answer.object["errors"] as? [[String: String]])
            #expect(
                errors == [
                    [
                        "field": "title",
                        "message":
                            "must not contain control characters (U+0000-U+001F such as tab and newline, U+007F-U+009F); found \(found)",
                    ]
                ])
        }
        // Leading and trailing white space, line breaks included, is trimmed as before.
        let trimmed = try await server.request("POST", "/todos", headers: json, body: #"{"title":"\n\tMilk \r\n"}"#)
        #expect(trimmed.status == 201)
        #expect(trimmed.object["title"] as? String == "Milk")
        #expect(try await server.request("GET", "/todos").array.count == 1)
    }

    @Test("sort=title and q= over HTTP: case-insensitive, canonically equivalent spellings equal, ties by createdAt")
    func titleSortAndSearch() async throws {
        // "é" precomposed and as e + combining accent are the same title to sort and search.
        let titles = ["beta", "\u{E9}clair", "Alpha", "e\u{301}clair", "ALPHA", "alpha", "Zeta", "caf\u{E9} au lait"]
        var ids: [String] = []
        for title in titles {
            let created = try await server.request("POST", "/todos", headers: json, body: #"{"title":"\#(title)"}"#)
            ids.append(try #require(created.object["id"] as? String))
            clock.advance(milliseconds: 1)
        }
        func listed(_ query: String) async throws -> [String] {
            try await server.request("GET", "/todos?\(query)").array.compactMap { $0["id"] as? String }
        }
        // Folded: alpha ×3, beta, café au lait, zeta, éclair ×2 (U+00E9 after z); then the titles
        // themselves ("ALPHA" < "Alpha" < "alpha"); the two éclairs are equal, so by createdAt.
        #expect(try await listed("sort=title") == [ids[4], ids[2], ids[5], ids[0], ids[7], ids[6], ids[1], ids[3]])
        #expect(try await listed("sort=-title") == [ids[1], ids[3], ids[6], ids[7], ids[0], ids[5], ids[2], ids[4]])
        #expect(try await listed("sort=title&q=ALPH") == [ids[4], ids[2], ids[5]])
        #expect(try await listed("sort=title&q=%C3%89CLAIR") == [ids[1], ids[3]])
        #expect(try await listed("sort=title&q=E%CC%81") == [ids[7], ids[1], ids[3]])
        #expect(try await listed("q=zz") == [])
        #expect(try await server.request("GET", "/todos?q=et").header("X-Total-Count") == "2")
    }
}
