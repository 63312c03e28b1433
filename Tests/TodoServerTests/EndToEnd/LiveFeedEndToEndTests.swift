import Foundation
import LockTracing
import Logging
import TestSupport
import Testing

@testable import TodoData
@testable import TodoDataTestSupport
@testable import TodoServer

/// What a front end holds: the to-dos by id with their revisions, kept current from the feed.
struct MirroredTodos: Equatable, CustomStringConvertible {
    var revisions: [String: Int] = [:]
    /// Changes that contradicted what was held (a duplicate or a gap shows up here).
    var contradictions: [String] = []

    init(listing: [[String: Any]], tags: (String) -> Int? = { _ in nil }) {
        for item in listing {
            guard let id = item["id"] as? String else { continue }
            revisions[id] = tags(id) ?? 0
        }
    }

    /// From a list's items and each to-do's revision read one by one is costly: the list's `ETag`
    /// is of the page; so a mirror compares ids and, once changes are applied, revisions from events.
    mutating func apply(_ event: ServerSentEvent) {
        let object = event.object
        switch event.event {
        case "created":
            let todo = object["todo"] as? [String: Any] ?? [:]
            let id = todo["id"] as? String ?? "?"
            if revisions[id] != nil { contradictions.append("created \(id) twice") }
            revisions[id] = Self.revision(object)
        case "updated":
            let todo = object["todo"] as? [String: Any] ?? [:]
            let id = todo["id"] as? String ?? "?"
            guard let held = revisions[id] else {
                contradictions.append("updated \(id), which is not held")
                return
            }
            let revision = Self.revision(object)
            if held != 0, revision <= held { contradictions.append("updated \(id) to \(revision) while holding \(held)") }
            revisions[id] = revision
        case "deleted":
            let id = object["id"] as? String ?? "?"
            if revisions.removeValue(forKey: id) == nil { contradictions.append("deleted \(id), which is not held") }
        case "cleared":
            revisions = [:]
        default:
            contradictions.append("unexpected event \(event)")
        }
    }

    static func revision(_ object: [String: Any]) -> Int {
        Int((object["etag"] as? String ?? "").trimmingCharacters(in: CharacterSet(charactersIn: "\""))) ?? -1
    }

    var ids: Set<String> { Set(revisions.keys) }
    var description: String { "\(revisions.count) to-dos, contradictions: \(contradictions)" }
}

/// Writers on their own threads and connections: creates, changes and deletes, with a seed printed;
/// with `clears`, now and then a `DELETE /todos` too (one round in 32), racing the others' writes.
final class FeedWriters {
    private let group = DispatchGroup()

    init(ports: [Int], rounds: Int, seed: UInt64, clears: Bool = false) {
        for (index, port) in ports.enumerated() {
            group.enter()
            Thread.detachNewThread { [group] in
                defer { group.leave() }
                var random = SplitMix64(seed: seed &+ UInt64(index))
                guard let client = try? TestHTTPClient(port: port) else { return }
                var mine: [String] = []
                for round in 0..<rounds {
                    if clears, random.next() % 32 == 0 {
                        _ = try? client.request("DELETE", "/todos")
                        mine = []
                        continue
                    }
                    _ = FeedWriters.randomWrite(through: client, mine: &mine, random: &random, index: index, round: round)
                }
            }
        }
    }

    func wait() { group.wait() }

    /// One seeded write of writer `index` in round `round`: a DELETE or a PATCH of one of its own
    /// to-dos (`mine`), or a POST whose new to-do joins them. The answer, nil if the request failed.
    static func randomWrite(
        through client: TestHTTPClient, mine: inout [String], random: inout SplitMix64, index: Int, round: Int
    ) -> HTTPResponseSnapshot? {
        switch random.next() % 4 {
        case 0 where !mine.isEmpty:
            let id = mine.remove(at: Int(random.next() % UInt64(mine.count)))
            return try? client.request("DELETE", "/todos/\(id)")
        case 1 where !mine.isEmpty, 2 where !mine.isEmpty:
            let id = mine[Int(random.next() % UInt64(mine.count))]
            return try? client.request("PATCH", "/todos/\(id)", body: #"{"title":"w\#(index) r\#(round)"}"#)
        default:
            let answer = try? client.request("POST", "/todos", body: #"{"title":"w\#(index) r\#(round)"}"#)
            if answer?.status == 201, let id = answer?.object["id"] as? String { mine.append(id) }
            return answer
        }
    }
}

extension LiveServer {
    /// Every to-do (one page of up to 1,000) and the list's `X-Last-Event-ID`.
    func listing() throws -> (items: [[String: Any]], position: String) {
        let list = try request("GET", "/todos?limit=1000")
        try #require(list.status == 200, "GET /todos: \(list.status) \(list.text)")
        return (list.array, try #require(list.header("X-Last-Event-ID")))
    }

    /// Each to-do's revision from `GET /todos/{id}`'s tag.
    func revisions() throws -> [String: Int] {
        var revisions: [String: Int] = [:]
        for item in try listing().items {
            let id = try #require(item["id"] as? String)
            // A failed read must fail here, not drop the to-do from what the test expects.
            let answer = try request("GET", "/todos/\(id)")
            try #require(answer.status == 200, "GET /todos/\(id): \(answer.status) \(answer.text)")
            revisions[id] = try #require(Int((answer.header("ETag") ?? "").trimmingCharacters(in: CharacterSet(charactersIn: "\""))))
        }
        return revisions
    }

    func subscribe(after position: String? = nil, headers: [(String, String)] = [], receiveBufferBytes: Int32? = nil) throws
        -> EventStreamClient
    {
        let target =
            position.map { "/todos/events?lastEventId=\($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? $0)" }
            ?? "/todos/events"
        return try EventStreamClient(port: port, target: target, headers: headers, receiveBufferBytes: receiveBufferBytes)
    }
}

/// Reads events into `mirror` until it holds what `expected` says or the stream stalls.
func follow(_ stream: EventStreamClient, into mirror: inout MirroredTodos, until expected: [String: Int]) throws -> [ServerSentEvent] {
    var seen: [ServerSentEvent] = []
    while mirror.revisions != expected {
        guard let event = try stream.nextEvent() else { break }
        seen.append(event)
        mirror.apply(event)
    }
    return seen
}

extension LiveFeedOnPostgres {
    @Suite("End to end: the live change feed on every store", .tags(.endToEnd))
    struct LiveFeedStoresEndToEndTests {
        @Test(
            "list, then subscribe at the list's position, under concurrent writers: nothing missed, nothing twice",
            arguments: StoreKind.available)
        func listThenSubscribe(kind: StoreKind) async throws {
            let store = try await ContractStore(kind, feeds: true)
            let server = try LiveServer(store: store.store)
            for index in 0..<5 { _ = try server.request("POST", "/todos", body: #"{"title":"seed \#(index)"}"#) }
            let seed = UInt64.random(in: 0...UInt64.max)
            print("LiveFeed listThenSubscribe seed: \(seed)")
            let writers = FeedWriters(ports: [server.port, server.port], rounds: 60, seed: seed)
            let (items, position) = try server.listing()
            let stream = try server.subscribe(after: position)
            #expect(stream.status == 200)
            #expect(stream.header("Content-Type") == "text/event-stream")
            writers.wait()
            // A last change after every writer's: once it is heard, everything before it was.
            let marker = try #require(try server.request("POST", "/todos", body: #"{"title":"marker"}"#).object["id"] as? String)
            let expected = try server.revisions()
            var mirror = MirroredTodos(listing: items)
            // The page carries no revisions: a listed to-do holds 0 until an event tells its revision.
            var seen: [ServerSentEvent] = []
            while mirror.revisions[marker] == nil {
                guard let event = try stream.nextEvent() else { break }
                seen.append(event)
                mirror.apply(event)
            }
            #expect(mirror.contradictions.isEmpty, "\(mirror)")
            #expect(mirror.ids == Set(expected.keys))
            for (id, revision) in mirror.revisions where revision != 0 { #expect(expected[id] == revision, "\(id)") }
            let ids = seen.compactMap(\.id)
            #expect(Set(ids).count == ids.count, "positions are unique")
            withExtendedLifetime(store) {}
        }

        @Test("a client that reconnects with Last-Event-ID gets exactly what it missed, in order", arguments: StoreKind.available)
        func resume(kind: StoreKind) async throws {
            let store = try await ContractStore(kind, feeds: true)
            let server = try LiveServer(store: store.store)
            let first = try server.subscribe()
            let a = try server.request("POST", "/todos", body: #"{"title":"a"}"#)
            let aID = try #require(a.object["id"] as? String)
            let seen = try #require(try first.nextEvent())
            #expect(seen.event == "created")
            let lastSeen = try #require(seen.id)
            // Gone; meanwhile three changes.
            first.client.reset()
            let b = try server.request("POST", "/todos", body: #"{"title":"b"}"#)
            _ = try server.request("PATCH", "/todos/\(aID)", body: #"{"completed":true}"#)
            _ = try server.request("DELETE", "/todos/\(aID)")
            let again = try server.subscribe(headers: [("Last-Event-ID", lastSeen)])
            let missed = try again.events(3)
            #expect(missed.map(\.event) == ["created", "updated", "deleted"])
            #expect((missed[0].object["todo"] as? [String: Any])?["id"] as? String == b.object["id"] as? String)
            #expect((missed[1].object["todo"] as? [String: Any])?["completed"] as? Bool == true)
            #expect(missed[1].object["etag"] as? String == "\"2\"")
            #expect(missed[2].object["id"] as? String == aID)
            // Then live.
            _ = try server.request("DELETE", "/todos")
            #expect(try again.nextEvent()?.event == "cleared")
            // The header wins over the URL's lastEventId (EventSource keeps the URL it was opened with).
            let both = try server.subscribe(after: "stale-position", headers: [("Last-Event-ID", try #require(missed[2].id))])
            _ = try server.request("POST", "/todos", body: #"{"title":"c"}"#)
            let next = try both.events(2)
            #expect(next.map(\.event) == ["cleared", "created"])
            withExtendedLifetime(store) {}
        }
    }
}

@Suite("End to end: the live change feed's stream", .tags(.endToEnd))
struct LiveFeedEndToEndTests {
    @Test func aPositionOlderThanWhatIsRetainedGetsOneResyncThenTheStreamGoesOn() throws {
        let server = try LiveServer(store: InMemoryTodoStore(changesRetained: 3))
        let (_, position) = try server.listing()
        for index in 0..<5 { _ = try server.request("POST", "/todos", body: #"{"title":"\#(index)"}"#) }
        let stream = try server.subscribe(after: position)
        let resync = try #require(try stream.nextEvent())
        #expect(resync.event == "resync")
        #expect(resync.id == (try server.listing().position))
        _ = try server.request("DELETE", "/todos")
        #expect(try stream.nextEvent()?.event == "cleared")
        // Unknown: the same.
        let unknown = try server.subscribe(headers: [("Last-Event-ID", "not-a-position")])
        #expect(try unknown.nextEvent()?.event == "resync")
    }

    /// Issue 35: a memory store took a cursor with a PostgreSQL snapshot it never hands out (4,096
    /// transactions "in progress"); the stream never advanced nor resynced, and every write
    /// rescanned the retained changes against the list. Such a token is unknown: a resync, then on.
    @Test func aForgedSnapshotCursorOnTheMemoryStoreGetsAResyncThenHearsLaterChanges() throws {
        // No heartbeat within the clients' 20 s receive time-out: a stream that hears nothing fails.
        let server = try LiveServer(configure: {
            $0.eventsHeartbeatSeconds = 600
            $0.timeoutSeconds = 1_200
        })
        _ = try server.request("POST", "/todos", body: #"{"title":"before"}"#)
        let (_, position) = try server.listing()
        let tag = try #require(position.split(separator: ".").first.map(String.init))
        #expect(position == "\(tag).1.1")
        let inProgress = (2...4097).map(String.init).joined(separator: "_")
        for forged in ["\(tag).1.0~1.5000.\(inProgress)", "\(tag).1.0~2.3."] {
            let stream = try server.subscribe(headers: [("Last-Event-ID", forged)])
            #expect(stream.status == 200)
            let resync = try #require(try stream.nextEvent())
            #expect(resync.event == "resync")
            #expect(resync.id == (try server.listing().position))
            let created = try server.request("POST", "/todos", body: #"{"title":"after"}"#)
            #expect(created.status == 201)
            let heard = try #require(try stream.nextEvent())
            #expect(heard.event == "created")
            #expect(heard.id == (try server.listing().position))
            #expect(heard.data?.contains(#""title":"after""#) == true)
        }
    }

    /// Issue 35: a feed slot whose client closed stayed taken until the second heartbeat that
    /// found it gone (~30 s at the defaults). The heartbeat here is ten minutes: only the close
    /// can free the one slot in time.
    @Test func aClientThatClosesItsConnectionFreesItsSlotAtOnce() throws {
        let server = try LiveServer(configure: {
            $0.eventsMaxSubscribers = 1
            $0.eventsHeartbeatSeconds = 600
            $0.timeoutSeconds = 1_200
        })
        let first = try server.subscribe()
        #expect(try first.next()?.retry == 2000)
        // All it was sent is read: the close is a FIN, not the reset that unread bytes would make.
        first.client.close()
        let second = eventually(timeout: .seconds(10)) { () -> EventStreamClient? in
            guard let stream = try? server.subscribe(), (try? stream.next())?.retry == 2000 else { return nil }
            return stream
        }
        let admitted = try #require(second, "the closed stream's slot is still taken")
        #expect(try server.request("GET", "/metrics").text.contains("feed_subscribers 1"))
        _ = try server.request("POST", "/todos", body: #"{"title":"heard"}"#)
        #expect(try admitted.nextEvent()?.event == "created")
    }

    @Test func theStreamStartsWithARetryHintAndHeadAnswersTheHeadOnly() throws {
        let server = try LiveServer()
        let stream = try server.subscribe()
        #expect(try stream.next()?.retry == 2000)
        #expect(stream.header("Cache-Control") == "no-store")
        #expect(stream.header("Transfer-Encoding") == "chunked")
        let head = try server.request("HEAD", "/todos/events")
        #expect(head.status == 200)
        #expect(head.header("Content-Type") == "text/event-stream")
        #expect(head.body.isEmpty)
        let list = try server.request("HEAD", "/todos")
        #expect(list.header("X-Last-Event-ID") != nil)
    }

    @Test func heartbeatsKeepAStreamOpenPastTheIdleTimeOut() throws {
        // A 1 s time-out and a 15 s heartbeat: the heartbeat comes every 0.5 s instead.
        let server = try LiveServer(configure: {
            $0.timeoutSeconds = 1
            $0.eventsHeartbeatSeconds = 15
        })
        let stream = try server.subscribe()
        let started = ContinuousClock.now
        var comments = 0
        while comments < 5, let message = try stream.next() {
            if message.comment == "keep-alive" { comments += 1 }
        }
        #expect(comments == 5)
        #expect(ContinuousClock.now - started >= .seconds(2), "longer than the time-out")
        _ = try server.request("POST", "/todos", body: #"{"title":"still here"}"#)
        #expect(try stream.nextEvent()?.event == "created")
    }

    @Test func aSubscriberThatDoesNotReadIsCutOffWhileAnotherGetsEveryChange() throws {
        let server = try LiveServer(configure: {
            $0.timeoutSeconds = 2
            $0.eventsMaxBufferedBytes = 16 << 10
        })
        let stalled = try server.subscribe(receiveBufferBytes: 4096)
        let reader = try server.subscribe()
        let created = try server.request("POST", "/todos", body: #"{"title":"x"}"#)
        let id = try #require(created.object["id"] as? String)
        // More than the kernel's largest send buffer can hold (the server's socket grows its own
        // up to tcp_wmem's maximum): otherwise the stalled stream's output could all sit in the
        // kernel, and the server would never see it pile up.
        let kernelMax =
            (try? String(contentsOfFile: "/proc/sys/net/ipv4/tcp_wmem", encoding: .utf8))
            .flatMap { $0.split(whereSeparator: \.isWhitespace).last.flatMap { Int($0) } } ?? 4 << 20
        let rounds = max(1500, (kernelMax + (2 << 20)) / 2400)
        // The reader reads as the changes come, on its own thread.
        let heard = LockedBox<(Int, [String])>()
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            var mirror = MirroredTodos(listing: [])
            var events: [ServerSentEvent] = []
            do { events = try follow(reader, into: &mirror, until: [id: rounds + 1]) } catch { mirror.contradictions.append("\(error)") }
            heard.set((events.count, mirror.contradictions))
            done.signal()
        }
        // 2,000 bytes, the longest title there is (500 scalars): events of about 2.4 KB.
        let title = String(repeating: "😀", count: 496)
        let writer = try server.client()
        for round in 0..<rounds {
            let patched = try writer.request("PATCH", "/todos/\(id)", body: #"{"title":"\#(title)\#(round)"}"#)
            try #require(patched.status == 200)
        }
        done.wait()
        #expect(heard.get()?.0 == rounds + 1)
        #expect(heard.get()?.1 == [])
        let cutOff = eventually(timeout: .seconds(20)) {
            try! server.request("GET", "/metrics").text.contains("feed_subscribers_cut_off_total 1")
        }
        let feedMetrics = try server.request("GET", "/metrics").text.split(separator: "\n").filter { $0.hasPrefix("feed_") }
        #expect(cutOff, "\(feedMetrics)")
        #expect(try server.request("GET", "/metrics").text.contains("feed_subscribers 1"))
        // What the stalled client can still read ends without the stream's end: it was cut off.
        _ = stalled.client.readToEnd()
        #expect(stalled.client.serverClosed())
    }

    @Test func aStopEndsOpenStreamsCleanly() throws {
        let server = try LiveServer()
        let stream = try server.subscribe()
        #expect(try stream.next()?.retry == 2000)
        server.application.requestStop()
        #expect(try stream.next() == nil)
        #expect(stream.ended, "the body's last chunk came")
        #expect(stream.client.serverClosed())
    }

    @Test func theSubscriberLimitAnswers503WithRetryAfter() throws {
        let server = try LiveServer(configure: { $0.eventsMaxSubscribers = 1 })
        let first = try server.subscribe()
        let refused = try server.request("GET", "/todos/events")
        #expect(refused.status == 503)
        #expect(refused.header("Retry-After") == "5")
        #expect(refused.header("Content-Type") == "application/problem+json")
        // An EventSource (Accept: text/event-stream) would stop for good on an error status: it
        // gets a stream that tells it when to retry, and ends.
        let browser = try server.subscribe()
        #expect(browser.status == 200)
        #expect(try browser.next()?.retry == 5000)
        #expect(try browser.next()?.comment?.hasPrefix("too many subscribers") == true)
        #expect(try browser.next() == nil)
        first.client.reset()
        // A refused event-stream client gets 200 too: admitted is the stream's own retry hint.
        #expect(eventually { (try? server.subscribe()).flatMap { try? $0.next() }?.retry == 2000 })
    }

    @Test func readTokensMaySubscribeWithTheHeaderOrTheQueryAndTheTokenIsNeverLogged() throws {
        let storage = CapturingLogHandler.Storage()
        let server = try LiveServer(
            configure: {
                $0.authTokens = ["rw-secret"]
                $0.readTokens = ["ro-secret"]
            }, logHandler: CapturingLogHandler(storage: storage))
        #expect(try server.request("GET", "/todos/events").status == 401)
        #expect(try server.request("GET", "/todos/events?access_token=wrong").status == 401)
        let byQuery = try server.subscribe(after: nil, headers: [])
        #expect(byQuery.status == 401)
        let withQuery = try EventStreamClient(port: server.port, target: "/todos/events?access_token=ro-secret")
        #expect(withQuery.status == 200)
        let withHeader = try server.subscribe(headers: [("Authorization", "Bearer ro-secret")])
        #expect(withHeader.status == 200)
        // Only on this route.
        #expect(try server.request("GET", "/todos?access_token=ro-secret").status == 401)
        let lines = storage.lines.withTracedLock { $0.map(\.message) }
        #expect(!lines.contains { $0.contains("ro-secret") })
        #expect(lines.contains { $0.contains("access_token=(redacted)") })
    }

    @Test func aListedOriginWithCredentialsGetsItsCORSHeadersOnTheStream() throws {
        let server = try LiveServer(configure: {
            $0.corsOrigin = "http://app.example"
            $0.corsCredentials = true
        })
        let stream = try server.subscribe(headers: [("Origin", "http://app.example")])
        #expect(stream.header("Access-Control-Allow-Origin") == "http://app.example")
        #expect(stream.header("Access-Control-Allow-Credentials") == "true")
        let preflight = try server.request(
            "OPTIONS", "/todos/events",
            headers: [
                ("Origin", "http://app.example"), ("Access-Control-Request-Method", "GET"),
                ("Access-Control-Request-Headers", "last-event-id"),
            ])
        #expect(preflight.status == 204)
        #expect(preflight.header("Access-Control-Allow-Origin") == "http://app.example")
        #expect(preflight.header("Access-Control-Allow-Credentials") == "true")
        #expect(preflight.header("Access-Control-Allow-Headers")?.lowercased().contains("last-event-id") == true)
        let list = try server.request("GET", "/todos", headers: [("Origin", "http://app.example")])
        #expect(list.header("Access-Control-Expose-Headers")?.contains("X-Last-Event-ID") == true)
    }

    @Test func theMetricsCountSubscribersAndEventsSent() throws {
        let server = try LiveServer()
        let stream = try server.subscribe()
        _ = try server.request("POST", "/todos", body: #"{"title":"m"}"#)
        #expect(try stream.nextEvent()?.event == "created")
        // The count moves once the event is written, which the client may read first.
        var metrics = ""
        #expect(
            eventually(timeout: .seconds(10)) {
                metrics = (try? server.request("GET", "/metrics").text) ?? ""
                return metrics.contains("feed_events_sent_total 1")
            }, "\(metrics)")
        #expect(metrics.contains("feed_subscribers 1"))
    }
}
