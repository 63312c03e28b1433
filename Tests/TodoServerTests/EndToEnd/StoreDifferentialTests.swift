import Foundation
import Glibc
import HTTPValues
import LockTracing
import Synchronization
import TestSupport
import Testing

@testable import TodoData
@testable import TodoDataTestSupport
@testable import TodoServer

/// Ids as the server makes them (lower-case UUIDs, which the PostgreSQL store requires), in order,
/// so that the same request sequence makes the same ids on every store.
final class SequentialUUIDs: IDGenerator {
    private let next = Atomic<UInt64>(1)

    func makeID() -> String {
        let number = next.add(1, ordering: .relaxed).oldValue
        let hex = String(number, radix: 16)
        return "8f0c2f1e-0000-4000-8000-" + String(repeating: "0", count: 12 - hex.count) + hex
    }
}

/// The memory, journal and PostgreSQL stores driven through the whole in-process pipeline by one
/// seeded random sequence of requests, hostile values included (NUL and other bytes in `q=`, an
/// escaped lone surrogate, numbers past 64 bits, tags ≥ 2^63, every case and normalization pair
/// of the titles, boundary limits and offsets): every answer must be the same on all three, its
/// status, body (but `url`), `ETag`, `X-Total-Count` and `Link`.
///
/// The seed is printed; `TODO_DIFFERENTIAL_SEED` replays one, `TODO_DIFFERENTIAL_STEPS` sets the
/// number of requests (400).
@Suite("Differential: memory, journal and PostgreSQL answer alike", .serialized, .tags(.postgres))
struct StoreDifferentialTests {
    /// Title pieces: case pairs that lowercasing gets wrong (final sigma, ß, ligatures, Kelvin
    /// sign), composed and decomposed forms, and characters that are one scalar after NFC (the
    /// stores differ, as documented, only on characters NFC leaves as several scalars).
    static let pieces = [
        "a", "A", "Z", "z", " ", "1", "-", "\"", "\\", "café", "cafe\u{301}", "CAFÉ", "CAFE\u{301}", "ΟΔΟΣ", "οδος", "οδοσ",
        "Straße", "STRASSE", "strasse", "ẞ", "ﬁle", "FILE", "\u{212A}", "k", "K", "µ", "μ", "Å", "\u{212B}", "A\u{30A}",
        "😀", "漢", "\u{FFFD}", "ǅ", "ǆ", "Ǆ", "ſ", "S", "ΐ",
    ]

    /// `q=` values as sent (already percent-encoded where they hold bytes a URL cannot).
    static let hostileQueries = [
        "%00", "a%00b", "%FF", "%C3", "%ED%A0%80", "%01", "%7F", "%C2%80", "%E2%80%8B", "%5C", "%22", "%25", "",
    ]

    static let hostileTags = [
        #""9223372036854775808""#, #"W/"18446744073709551615""#, #""18446744073709551616""#, #""0""#, #""-1""#,
        #""1""#, #""2""#, "*", #""abc""#, #"W/"1""#, #""9223372036854775807""#,
    ]

    static let numbers = [
        "0", "1", "-1", "9007199254740993", "9223372036854775807", "-9223372036854775808", "9223372036854775808",
        "18446744073709551616", "1e300", "2.5", "1.0", "-0", "\"3\"", "null", "true",
    ]

    static let days = [#""2026-11-30""#, #""0001-01-01""#, #""9999-12-31""#, #""2026-02-30""#, "null", #""2026-1-1""#]

    struct Answer: Equatable, CustomStringConvertible {
        let status: Int
        let body: String
        let etag: String?
        let total: String?
        let link: String?

        var description: String { "\(status) etag=\(etag ?? "-") total=\(total ?? "-") link=\(link ?? "-") \(body)" }
    }

    /// The answer with every `url` member left out of its JSON body.
    static func answer(_ response: HTTPResponseSnapshot) -> Answer {
        var body = response.text
        if let json = try? JSONSerialization.jsonObject(with: Data(response.body), options: [.fragmentsAllowed]),
            let data = try? JSONSerialization.data(withJSONObject: withoutURL(json), options: [.sortedKeys, .fragmentsAllowed])
        {
            body = String(decoding: data, as: UTF8.self)
        }
        return Answer(
            status: response.status, body: body, etag: response.header("ETag"), total: response.header("X-Total-Count"),
            link: response.header("Link"))
    }

    static func withoutURL(_ value: Any) -> Any {
        if let object = value as? [String: Any] {
            return object.filter { $0.key != "url" }.mapValues(withoutURL)
        }
        if let array = value as? [Any] { return array.map(withoutURL) }
        return value
    }

    static func percentEncoded(_ text: String) -> String {
        text.utf8.map { byte in
            let plain = (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x2D
            return plain ? String(UnicodeScalar(byte)) : "%" + String(byte, radix: 16, uppercase: true).leftPadded(2)
        }.joined()
    }

    /// One random request: method, target, headers, body.
    static func randomRequest(_ random: inout SplitMix64, ids: [String], tags: [String]) -> (HTTPMethod, String, HTTPHeaders, String) {
        func pick<T>(_ items: [T]) -> T { items.randomElement(using: &random)! }
        func title() -> String {
            (0..<Int.random(in: 1...4, using: &random)).map { _ in pick(pieces) }.joined()
        }
        func jsonString(_ text: String) -> String {
            String(decoding: try! JSONSerialization.data(withJSONObject: text, options: [.fragmentsAllowed]), as: UTF8.self)
        }
        func fields(replacing: Bool) -> String {
            var members: [String] = []
            if replacing || Bool.random(using: &random) {
                members.append(#""title":"# + (Int.random(in: 0..<12, using: &random) == 0 ? pick(numbers) : jsonString(title())))
            }
            // Mostly valid, so that most requests reach the store; sometimes hostile.
            let hostile = Int.random(in: 0..<6, using: &random) == 0
            if Bool.random(using: &random) {
                members.append(#""completed":"# + (hostile ? pick(["null", "1"]) : pick(["true", "false"])))
            }
            if Bool.random(using: &random) {
                members.append(#""order":"# + (hostile ? pick(numbers) : String(Int.random(in: -3...3, using: &random))))
            }
            if Bool.random(using: &random) { members.append(#""dueDate":"# + (hostile ? pick(days) : pick(Array(days.prefix(3))))) }
            return "{" + members.joined(separator: ",") + "}"
        }
        let id =
            ids.isEmpty || Int.random(in: 0..<8, using: &random) == 0
            ? pick(["8f0c2f1e-0000-4000-8000-0000000fffff", "not-an-id", "8F0C2F1E-0000-4000-8000-000000000001", "%00"])
            : pick(ids)
        var headers: HTTPHeaders = ["Content-Type": "application/json"]
        func condition() {
            let tag = tags.isEmpty || Bool.random(using: &random) ? pick(hostileTags) : pick(tags)
            switch Int.random(in: 0..<4, using: &random) {
            case 0: headers.add("If-Match", tag)
            case 1: headers.add("If-None-Match", tag)
            default: break
            }
        }
        switch Int.random(in: 0..<10, using: &random) {
        case 0, 1, 2:
            return (.post, "/todos", headers, fields(replacing: true))
        case 3, 4:
            var query: [String] = []
            if Bool.random(using: &random) {
                let q = Int.random(in: 0..<3, using: &random) == 0 ? pick(hostileQueries) : percentEncoded(pick([pick(pieces), title()]))
                query.append("q=" + q)
            }
            if Bool.random(using: &random) {
                query.append("sort=" + pick(["title", "-title", "order", "-order", "createdAt", "-createdAt", "dueDate", "-dueDate"]))
            }
            if Int.random(in: 0..<3, using: &random) == 0 {
                query.append("limit=" + pick(["1", "2", "1000", "1001", "0", "-1", "99999999999999999999"]))
            }
            if Int.random(in: 0..<3, using: &random) == 0 {
                query.append("offset=" + pick(["0", "1", "3", "9223372036854775807", "9223372036854775808", "-1"]))
            }
            if Int.random(in: 0..<4, using: &random) == 0 { query.append("completed=" + pick(["true", "false", "yes"])) }
            return (.get, "/todos" + (query.isEmpty ? "" : "?" + query.joined(separator: "&")), [:], "")
        case 5:
            if Bool.random(using: &random) { condition() }
            return (.get, "/todos/" + id, headers, "")
        case 6, 7:
            condition()
            return (.patch, "/todos/" + id, headers, fields(replacing: false))
        case 8:
            condition()
            return (.put, "/todos/" + id, headers, fields(replacing: true))
        default:
            condition()
            return (.delete, "/todos/" + id, headers, "")
        }
    }

    @Test(.enabled(if: PostgresTestCluster.isAvailable))
    func theSameRandomRequestsGetTheSameAnswersOnEveryStore() async throws {
        let seed = ProcessInfo.processInfo.environment["TODO_DIFFERENTIAL_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 0...UInt64.max)
        let steps = ProcessInfo.processInfo.environment["TODO_DIFFERENTIAL_STEPS"].flatMap { Int($0) } ?? 400
        print("StoreDifferentialTests seed \(seed) (replay: TODO_DIFFERENTIAL_SEED=\(seed)), \(steps) requests")
        let clock = FakeClock("2026-11-22T10:00:00.000Z")
        var stores: [ContractStore] = []
        var clients: [InProcessClient] = []
        for kind in StoreKind.allCases {
            let store = try await ContractStore(kind)
            stores.append(store)
            clients.append(try InProcessClient(store: store.store, clock: clock, ids: SequentialUUIDs()))
        }
        defer { withExtendedLifetime(stores) {} }
        var random = SplitMix64(seed: seed)
        var ids: [String] = [], tags: [String] = []
        var statuses: [Int: Int] = [:]
        for step in 0..<steps {
            let (method, target, headers, body) = Self.randomRequest(&random, ids: ids, tags: tags)
            var answers: [Answer] = []
            for client in clients {
                answers.append(Self.answer(await client.request(method, target, headers: headers, body: body)))
            }
            let request = "\(method) \(target) \(headers.map { "\($0.name): \($0.value)" }) \(body)"
            for (kind, answer) in zip(StoreKind.allCases.dropFirst(), answers.dropFirst()) where answer != answers[0] {
                Issue.record("seed \(seed), step \(step): \(request)\n memory: \(answers[0])\n \(kind): \(answer)")
            }
            guard answers.dropFirst().allSatisfy({ $0 == answers[0] }) else { return }
            statuses[answers[0].status, default: 0] += 1
            if method == .post, answers[0].status == 201,
                let object = try? JSONSerialization.jsonObject(with: Data(answers[0].body.utf8)) as? [String: Any],
                let id = object["id"] as? String
            {
                ids.append(id)
            }
            if let etag = answers[0].etag { tags.append(etag) }
            clock.advance(milliseconds: Int64.random(in: 0...2, using: &random))
        }
        print("StoreDifferentialTests seed \(seed): statuses \(statuses.sorted { $0.key < $1.key })")
        #expect(statuses[201, default: 0] > 0 && statuses[200, default: 0] > 0)
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
