import Foundation
import HTTPValues
import TestSupport
import Testing

@testable import TodoData
@testable import TodoServer

/// Client input is decided before it reaches SQL, with the in-memory store's answer, on every store
/// (issue 21): a NUL in `q=`, tags past 2^63, and titles that differ only in case or normalization.
@Suite("Input stays input: the same answer on every store", .tags(.postgres))
struct InputStaysInputTests {
    private func client(_ kind: StoreKind) async throws -> (InProcessClient, ContractStore) {
        let store = try await ContractStore(kind)
        return (try InProcessClient(store: store.store, ids: SequentialUUIDs()), store)
    }

    private func create(_ client: InProcessClient, _ title: String) async throws -> String {
        let body = String(decoding: try JSONSerialization.data(withJSONObject: ["title": title]), as: UTF8.self)
        let created = await client.request(.post, "/todos", headers: ["Content-Type": "application/json"], body: body)
        try #require(created.status == 201)
        return try #require(created.object["id"] as? String)
    }

    @Test("q= with a NUL or another byte no title holds: 200, nothing found", arguments: StoreKind.available)
    func controlBytesInQ(kind: StoreKind) async throws {
        let (client, store) = try await client(kind)
        defer { withExtendedLifetime(store) {} }
        _ = try await create(client, "milk")
        for q in ["%00", "mi%00lk", "%01", "%7F"] {
            let answer = await client.request(.get, "/todos?q=\(q)")
            #expect(answer.status == 200, "\(q)")
            #expect(answer.text == "[]", "\(q)")
            #expect(answer.header("X-Total-Count") == "0", "\(q)")
        }
    }

    @Test("tags ≥ 2^63: If-Match fails (412), If-None-Match passes", arguments: StoreKind.available)
    func hugeTags(kind: StoreKind) async throws {
        let (client, store) = try await client(kind)
        defer { withExtendedLifetime(store) {} }
        let id = try await create(client, "tagged")
        let json: HTTPHeaders = ["Content-Type": "application/json"]
        for tag in [#""9223372036854775808""#, #"W/"18446744073709551615""#] {
            var ifMatch = json
            ifMatch.add("If-Match", tag)
            #expect(await client.request(.patch, "/todos/\(id)", headers: ifMatch, body: #"{"completed":true}"#).status == 412, "\(tag)")
            #expect(await client.request(.put, "/todos/\(id)", headers: ifMatch, body: #"{"title":"x"}"#).status == 412, "\(tag)")
            #expect(await client.request(.delete, "/todos/\(id)", headers: ifMatch).status == 412, "\(tag)")
            var ifNoneMatch = json
            ifNoneMatch.add("If-None-Match", tag)
            #expect(await client.request(.patch, "/todos/\(id)", headers: ifNoneMatch, body: #"{"order":1}"#).status == 200, "\(tag)")
            #expect(await client.request(.put, "/todos/\(id)", headers: ifNoneMatch, body: #"{"title":"tagged"}"#).status == 200, "\(tag)")
        }
        var ifNoneMatch: HTTPHeaders = [:]
        ifNoneMatch.add("If-None-Match", #"W/"18446744073709551615""#)
        #expect(await client.request(.delete, "/todos/\(id)", headers: ifNoneMatch).status == 204)
    }

    @Test("case folding and one normalization form: café NFC/NFD, ΟΔΟΣ/οδος, Straße/STRASSE", arguments: StoreKind.available)
    func foldingAndNormalization(kind: StoreKind) async throws {
        let (client, store) = try await client(kind)
        defer { withExtendedLifetime(store) {} }
        // Created in an order that differs from the expected one.
        let nfd = try await create(client, "cafe\u{301} b")
        let nfc = try await create(client, "caf\u{E9} a")
        let upper = try await create(client, "CAF\u{C9} a")
        let greek = try await create(client, "ΟΔΟΣ")
        let german = try await create(client, "Straße")
        let sorted = await client.request(.get, "/todos?sort=title")
        // By the folded title (café a = CAFÉ a < café b < strasse < οδοσ), ties by the NFC title.
        #expect(sorted.array.compactMap { $0["id"] as? String } == [upper, nfc, nfd, german, greek])
        let descending = await client.request(.get, "/todos?sort=-title")
        #expect(descending.array.compactMap { $0["id"] as? String } == [greek, german, nfd, nfc, upper])
        for (q, expected) in [
            ("%CE%BF%CE%B4%CE%BF%CF%82", [greek]), ("STRASSE", [german]), ("cafe%CC%81", [upper, nfc, nfd]),
            ("CAF%C3%89%20A", [upper, nfc]),
        ] {
            let found = await client.request(.get, "/todos?sort=title&q=\(q)")
            #expect(found.array.compactMap { $0["id"] as? String } == expected, "q=\(q)")
            #expect(found.header("X-Total-Count") == String(expected.count), "q=\(q)")
        }
    }
}
