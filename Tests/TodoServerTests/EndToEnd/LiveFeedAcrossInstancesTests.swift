import Foundation
import TestSupport
import Testing

@testable import TodoDataTestSupport
@testable import TodoServer

extension LiveFeedOnPostgres {
    @Suite("End to end: the live feed across instances and restarts", .tags(.endToEnd))
    struct LiveFeedAcrossInstancesTests {
        @Test(.enabled(if: PostgresTestCluster.isAvailable))
        func writersAndSubscribersOnTwoInstancesSeeEveryChangeOnceInTheSameOrderAndResumeOnEitherInstance() async throws {
            let pair = try await TwoInstancesEndToEndTests.Pair(feeds: true)
            for index in 0..<3 { _ = try pair.a.request("POST", "/todos", body: #"{"title":"seed \#(index)"}"#) }
            let (items, position) = try pair.a.listing()
            // The same listing on B says the same: positions are the database's, not an instance's.
            let onA = try pair.a.subscribe(after: position)
            let onB = try pair.b.subscribe(after: position)
            let leaving = try pair.a.subscribe(after: position)
            let seed = UInt64.random(in: 0...UInt64.max)
            print("LiveFeed two instances seed: \(seed)")
            // Clears among the writes: each must sit in the feed after every change it removed and
            // before every change after it, or a mirror ends holding a to-do that is gone or missing one.
            let writers = FeedWriters(ports: [pair.a.port, pair.b.port, pair.a.port, pair.b.port], rounds: 40, seed: seed, clears: true)
            // One subscriber leaves after a few changes and comes back on the other instance.
            let before = try leaving.events(5)
            leaving.client.reset()
            writers.wait()
            let marker = try #require(try pair.b.request("POST", "/todos", body: #"{"title":"marker"}"#).object["id"] as? String)
            let expected = try pair.a.revisions()
            let back = try pair.b.subscribe(headers: [("Last-Event-ID", try #require(before.last?.id))])

            func drain(_ stream: EventStreamClient, after earlier: [ServerSentEvent] = []) throws -> (MirroredTodos, [ServerSentEvent]) {
                var mirror = MirroredTodos(listing: items)
                var seen = earlier
                for event in earlier { mirror.apply(event) }
                while mirror.revisions[marker] == nil {
                    guard let event = try stream.nextEvent() else { break }
                    seen.append(event)
                    mirror.apply(event)
                }
                return (mirror, seen)
            }
            let (mirrorA, seenA) = try drain(onA)
            let (mirrorB, seenB) = try drain(onB)
            let (mirrorBack, seenBack) = try drain(back, after: before)
            for (name, mirror) in [("A", mirrorA), ("B", mirrorB), ("resumed on B", mirrorBack)] {
                #expect(mirror.contradictions.isEmpty, "\(name): \(mirror)")
                #expect(mirror.ids == Set(expected.keys), "\(name)")
                for (id, revision) in mirror.revisions where revision != 0 { #expect(expected[id] == revision, "\(name) \(id)") }
            }
            #expect(seenA.map(\.id) == seenB.map(\.id), "the same positions in the same order on both instances")
            // The same data but for the url, which each instance writes with its own address.
            func unhosted(_ events: [ServerSentEvent], port: Int) -> [String?] {
                events.map { $0.data?.replacingOccurrences(of: "127.0.0.1:\(port)", with: "HOST") }
            }
            #expect(unhosted(seenA, port: pair.a.port) == unhosted(seenB, port: pair.b.port))
            #expect(seenBack.map(\.id) == seenA.map(\.id), "resumed on the other instance without a gap or a repeat")
            #expect(seenA.count > 40)
        }

        @Test(.enabled(if: PostgresTestCluster.isAvailable))
        func aChangeThroughOneInstanceReachesTheOthersSubscribersWhenToldNotAtItsNextPoll() async throws {
            // Neither instance reads unasked within the test (an hour): B reads A's changes only
            // because A tells it (NOTIFY). Without that, B's first heartbeat (15 s after the
            // subscription; the test takes about a second) comes before the event and fails it.
            let pair = try await TwoInstancesEndToEndTests.Pair(feeds: true, changesPollInterval: .seconds(3600))
            let (_, position) = try pair.b.listing()
            let onB = try pair.b.subscribe(after: position)
            func nextEventBeforeAHeartbeat() throws -> ServerSentEvent? {
                while let message = try onB.next(), message.comment == nil {
                    if message.event != nil { return message }
                }
                return nil
            }
            for index in 0..<3 {
                #expect(try pair.a.request("POST", "/todos", body: #"{"title":"told \#(index)"}"#).status == 201)
                let event = try #require(try nextEventBeforeAHeartbeat())
                #expect(event.event == "created")
                #expect(event.data?.contains(#""title":"told \#(index)""#) == true, "\(event)")
            }
        }

        @Test func aClientResumesAcrossARestartOfTheServerOnItsDataDirectory() throws {
            let directory = DataDirectory()
            var lastSeen: String
            var survivorID: String
            do {
                let store = try directory.open(fsync: .never)
                let server = try LiveServer(store: store)
                let stream = try server.subscribe()
                let created = try server.request("POST", "/todos", body: #"{"title":"a"}"#)
                survivorID = try #require(created.object["id"] as? String)
                lastSeen = try #require(try stream.nextEvent()?.id)
                // Missed by the client: two changes before the stop.
                _ = try server.request("PATCH", "/todos/\(survivorID)", body: #"{"completed":true}"#)
                _ = try server.request("POST", "/todos", body: #"{"title":"b"}"#)
                server.application.stop()
                store.close()
            }
            let store = try directory.open(fsync: .never)
            defer { store.close() }
            let server = try LiveServer(store: store)
            let resumed = try server.subscribe(headers: [("Last-Event-ID", lastSeen)])
            _ = try server.request("DELETE", "/todos/\(survivorID)")
            let events = try resumed.events(3)
            #expect(events.map(\.event) == ["updated", "created", "deleted"])
            #expect(events[0].object["etag"] as? String == "\"2\"")
            #expect(events[2].object["id"] as? String == survivorID)
            #expect(try server.listing().position == events[2].id)
            // A position from before the snapshot the journal was compacted into is not retained.
            #expect(!lastSeen.isEmpty)
        }
    }
}
