import Foundation
import LockTracing
import PostgresLoop
import Synchronization
import TestSupport
import Testing

@testable import TodoData
@testable import TodoServer

extension LiveFeedOnPostgres {
    @Suite("End to end: the live feed while its database stops under load", .tags(.endToEnd))
    struct LiveFeedDatabaseOutageTests {
        /// Writers on two connections while PostgreSQL stops (mode `mode`) and starts again: the
        /// subscriber keeps its stream or gets a clean end and resumes with `Last-Event-ID`; either
        /// way, once the database is back, it holds exactly what the database holds, having seen
        /// no change twice and skipped none.
        @Test(.enabled(if: PostgresTestCluster.isAvailable), arguments: ["fast", "immediate"])
        func subscribersKeepTheirStreamOrResumeAndMissNothingAfterTheDatabaseComesBack(mode: String) async throws {
            let cluster = try PostgresTestCluster()
            defer { cluster.stop() }
            try cluster.createDatabase("todo")
            let configuration = PostgresConfiguration(
                connectionString: cluster.connectionString(database: "todo"),
                timing: PostgresTiming(requestTimeout: .milliseconds(800), connectTimeout: .milliseconds(800)))
            var patient = configuration
            patient.timing.connectTimeout = .seconds(20)
            try await TodoSchema.migrate(patient)
            let store = try PostgresTodoStore(configuration: configuration)
            defer { store.close() }
            let server = try LiveServer(configure: { $0.eventsHeartbeatSeconds = 1 }, store: store)
            defer { server.application.stop() }

            for index in 0..<3 { _ = try server.request("POST", "/todos", body: #"{"title":"seed \#(index)"}"#) }
            let (items, position) = try server.listing()
            var stream = try server.subscribe(after: position)
            let seed = UInt64.random(in: 0...UInt64.max)
            print("LiveFeed database outage (\(mode)) seed: \(seed)")
            let writers = OutageWriters(port: server.port, count: 2, seed: seed)

            var mirror = MirroredTodos(listing: items)
            var seen: [ServerSentEvent] = []
            var resumes = 0
            /// The next event; a stream that ended cleanly is resumed after the last event seen.
            func nextEvent() throws -> ServerSentEvent? {
                while true {
                    if let event = try stream.nextEvent() { return event }
                    resumes += 1
                    guard resumes <= 20 else { return nil }
                    let last = seen.last?.id ?? position
                    // While the database is down a resume may be refused; try again until it is back.
                    var reopened: EventStreamClient?
                    _ = eventually(timeout: .seconds(30)) {
                        reopened = try? server.subscribe(after: last)
                        return reopened?.status == 200
                    }
                    stream = try #require(reopened)
                }
            }
            for event in try (0..<30).compactMap({ _ in try nextEvent() }) {
                seen.append(event)
                mirror.apply(event)
            }

            try cluster.stopServer(mode: mode)
            // The outage is seen by a writer: the store answers 503.
            #expect(eventually(timeout: .seconds(15)) { (try? server.request("POST", "/todos", body: #"{"title":"x"}"#))?.status == 503 })
            // A client that subscribes while the database is down, resuming where the first one is.
            let resumedAt = seen.count
            let during = try server.subscribe(after: try #require(seen.last?.id))
            #expect(during.status == 200)
            let writtenBefore = writers.written
            try cluster.start()
            // Every loop's connections are back (each comes back by itself): ten reads in a row answered.
            #expect(
                eventually(timeout: .seconds(30)) {
                    (0..<10).allSatisfy { _ in (try? server.request("GET", "/todos?limit=1"))?.status == 200 }
                })
            // Writes go on after the restart before the writers stop.
            #expect(eventually(timeout: .seconds(30)) { writers.written >= writtenBefore + 50 })
            let statuses = writers.stop()
            print("LiveFeed database outage (\(mode)): writers' statuses \(statuses.sorted { $0.key < $1.key })")
            #expect((statuses[503] ?? 0) > 0, "the writers saw the outage")
            let marker = try #require(
                eventually(timeout: .seconds(15)) { () -> String? in
                    try? server.request("POST", "/todos", body: #"{"title":"marker"}"#).object["id"] as? String
                })
            let expected = try server.revisions()
            while mirror.revisions[marker] == nil {
                guard let event = try nextEvent() else { break }
                seen.append(event)
                mirror.apply(event)
            }
            // The one that subscribed during the outage sees the same changes from where it started.
            var laterMirror = MirroredTodos(listing: items)
            for event in seen[..<resumedAt] { laterMirror.apply(event) }
            var laterSeen: [ServerSentEvent] = []
            while laterMirror.revisions[marker] == nil {
                guard let event = try during.nextEvent() else { break }
                laterSeen.append(event)
                laterMirror.apply(event)
            }
            #expect(laterSeen.map(\.id) == seen[resumedAt...].map(\.id), "subscribed during the outage: the same positions")
            #expect(laterMirror.contradictions.isEmpty, "\(laterMirror)")
            #expect(mirror.contradictions.isEmpty, "\(mirror)")
            #expect(mirror.ids == Set(expected.keys), "the subscriber holds what the database holds")
            for (id, revision) in mirror.revisions where revision != 0 { #expect(expected[id] == revision, "\(id)") }
            #expect(Set(seen.compactMap(\.id)).count == seen.count, "no position twice")
            #expect(!seen.contains { $0.event == "resync" }, "resumed within the retained window")
            #expect(seen.count > 20)
            print("LiveFeed database outage (\(mode)): \(seen.count) events, \(resumes) resumes")
        }
    }
}

/// Writers on connections of their own until stopped: creates, changes and deletes of their own
/// to-dos (seeded), a new connection after any failure, every status counted.
private final class OutageWriters: @unchecked Sendable {
    private let group = DispatchGroup()
    private let state = Mutex<(stopped: Bool, statuses: [Int: Int], written: Int)>((false, [:], 0))

    init(port: Int, count: Int, seed: UInt64) {
        for index in 0..<count {
            group.enter()
            Thread.detachNewThread { [self] in
                defer { group.leave() }
                var random = SplitMix64(seed: seed &+ UInt64(index))
                var client: TestHTTPClient?
                var mine: [String] = []
                var round = 0
                while !state.withTracedLock({ $0.stopped }) {
                    round += 1
                    guard let connection = client ?? (try? TestHTTPClient(port: port)) else { continue }
                    client = connection
                    let answer = FeedWriters.randomWrite(
                        through: connection, mine: &mine, random: &random, index: index, round: round)
                    guard let answer else {
                        client = nil
                        continue
                    }
                    state.withTracedLock {
                        $0.statuses[answer.status, default: 0] += 1
                        if (200..<300).contains(answer.status) { $0.written += 1 }
                    }
                }
            }
        }
    }

    /// Changes made so far (2xx answers).
    var written: Int { state.withTracedLock { $0.written } }

    /// Stops the writers and waits for them; the statuses they got, counted.
    func stop() -> [Int: Int] {
        state.withTracedLock { $0.stopped = true }
        group.wait()
        return state.withTracedLock { $0.statuses }
    }
}
