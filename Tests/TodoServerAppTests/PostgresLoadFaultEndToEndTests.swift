import Foundation
import Glibc
import LockTracing
import Synchronization
import TestSupport
import Testing

/// Two `todo-server` processes on one PostgreSQL cluster, both under steady load from several
/// clients (reads and writes), while the cluster is stopped with `pg_ctl stop -m immediate` and
/// started again on the same data directory and socket: every answer during the outage is a 503
/// problem with `Retry-After`, no request goes unanswered or takes longer than the deadline plus a
/// generous margin, both processes live through it and serve again by themselves. The timings
/// (stop to first 503, restart to first 2xx, per instance) are printed, not asserted.
@Suite(
    "End to end: two instances under load while PostgreSQL stops and comes back", .serialized,
    .enabled(if: PostgresTestCluster.isAvailable), .tags(.endToEnd, .postgres))
struct PostgresLoadFaultEndToEndTests {
    static let deadlineMs = 1000
    /// The bound on any one answer: the deadline plus a margin large enough that load cannot flake it.
    static let answerBound: Duration = .milliseconds(deadlineMs) + .seconds(10)
    static let clientsPerInstance = 3

    /// One request a load client sent and what came of it.
    struct Outcome: Sendable {
        let instance: Int
        let method: String
        let sent: ContinuousClock.Instant
        let answered: ContinuousClock.Instant
        /// nil: no answer (the connection closed or reset, or the receive time-out passed).
        let status: Int?
        let contentType: String?
        let retryAfter: String?
        let failure: String?
    }

    /// The outcomes of every load client, appended as they come.
    final class Log: Sendable {
        private let state = Mutex<(outcomes: [Outcome], running: Bool)>(([], true))

        func append(_ outcome: Outcome) { state.withTracedLock { $0.outcomes.append(outcome) } }
        var all: [Outcome] { state.withTracedLock { $0.outcomes } }
        var isRunning: Bool { state.withTracedLock { $0.running } }
        func stop() { state.withTracedLock { $0.running = false } }
    }

    /// One load client: on its own thread, a steady mix of GET one, list, POST and PATCH against one
    /// instance over a keep-alive connection (a new one after any connection failure), until stopped.
    static func runClient(instance: Int, port: Int, path: String, client number: Int, log: Log, done: DispatchGroup) {
        done.enter()
        Thread.detachNewThread {
            defer { done.leave() }
            let receiveTimeout = Int(answerBound.components.seconds) + 2
            var connection: TestHTTPClient?
            var step = number
            while log.isRunning {
                step += 1
                let (method, target, body): (String, String, String?) =
                    switch step % 4 {
                    case 0: ("GET", path, nil)
                    case 1: ("GET", "/todos?limit=5", nil)
                    case 2: ("POST", "/todos", #"{"title":"load \#(instance)-\#(number)-\#(step)"}"#)
                    default: ("PATCH", path, #"{"order":\#(step)}"#)
                    }
                let sent = ContinuousClock.now
                do {
                    if connection == nil {
                        connection = try TestHTTPClient(port: port, receiveTimeoutSeconds: receiveTimeout, recordsResponses: false)
                    }
                    let answer = try connection!.request(
                        method, target, headers: body == nil ? [] : [("Content-Type", "application/json")], body: body)
                    log.append(
                        Outcome(
                            instance: instance, method: method, sent: sent, answered: .now, status: answer.status,
                            contentType: answer.header("Content-Type"), retryAfter: answer.header("Retry-After"), failure: nil))
                } catch {
                    connection = nil
                    log.append(
                        Outcome(
                            instance: instance, method: method, sent: sent, answered: .now, status: nil, contentType: nil,
                            retryAfter: nil, failure: "\(error)"))
                }
            }
        }
    }

    static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds) * 1000 + Int(duration.components.attoseconds / 1_000_000_000_000_000)
    }

    @Test func bothInstancesAnswer503sThroughTheOutageAndServeAgainByThemselves() async throws {
        let cluster = try PostgresTestCluster()
        defer { cluster.stop() }
        try cluster.createDatabase("todo")
        let arguments = [
            "--host", "127.0.0.1", "--port", "0", "--threads", "2", "--database-url", cluster.connectionString(database: "todo"),
            "--database-timeout-ms", String(Self.deadlineMs),
        ]
        let servers = try [ServerProcess(arguments: arguments), ServerProcess(arguments: arguments)]
        defer { for server in servers { server.signal(SIGTERM) } }
        let ports = try servers.map { try $0.waitForPort() }
        let created = try TestHTTPClient(port: ports[0]).request(
            "POST", "/todos", headers: [("Content-Type", "application/json")], body: #"{"title":"kept"}"#)
        #expect(created.status == 201)
        let path = "/todos/\(try #require(created.object["id"] as? String))"
        for port in ports { #expect(try TestHTTPClient(port: port).request("GET", "/healthz").status == 200) }

        let log = Log()
        let done = DispatchGroup()
        for (instance, port) in ports.enumerated() {
            for number in 0..<Self.clientsPerInstance {
                Self.runClient(instance: instance, port: port, path: path, client: number, log: log, done: done)
            }
        }
        // Steady load first: every instance has answered each kind of request with a 2xx.
        let warm = eventually(timeout: .seconds(60)) {
            let outcomes = log.all
            return (0..<ports.count).allSatisfy { instance in
                ["GET", "POST", "PATCH"].allSatisfy { method in
                    outcomes.filter { $0.instance == instance && $0.method == method && ($0.status ?? 0) / 100 == 2 }.count >= 5
                }
            }
        }
        #expect(warm, "both instances serve 2xx under load before the stop")

        let stopping = ContinuousClock.now
        try cluster.stopServer(mode: "immediate")
        let stopped = ContinuousClock.now
        // Both instances answer 503 under load, and /healthz says so.
        let outageSeen = eventually(timeout: .seconds(60)) {
            let outcomes = log.all
            return (0..<ports.count).allSatisfy { instance in
                outcomes.filter { $0.instance == instance && $0.sent >= stopped && $0.status == 503 }.count >= 10
            }
        }
        #expect(outageSeen, "both instances answer 503 while the database is down")
        for port in ports {
            let health = try TestHTTPClient(port: port).request("GET", "/healthz")
            #expect(health.status == 503)
            #expect(health.text.contains("database"), "\(health.text)")
        }

        let restarting = ContinuousClock.now
        try cluster.start()
        let restarted = ContinuousClock.now
        // Each instance serves 2xx again by itself: a request sent after the restart answered 2xx.
        let recovered = eventually(timeout: .seconds(60)) {
            let outcomes = log.all
            return (0..<ports.count).allSatisfy { instance in
                outcomes.contains { $0.instance == instance && $0.sent >= restarted && ($0.status ?? 0) / 100 == 2 }
            }
        }
        #expect(recovered, "both instances serve 2xx again after the restart")
        for port in ports {
            #expect(eventually(timeout: .seconds(60)) { (try? TestHTTPClient(port: port).request("GET", "/healthz"))?.status == 200 })
        }
        // Service is back in full: ten reads of the kept to-do in a row on each instance.
        for port in ports {
            #expect(
                eventually(timeout: .seconds(60)) {
                    guard let client = try? TestHTTPClient(port: port) else { return false }
                    return (0..<10).allSatisfy { _ in (try? client.request("GET", path))?.object["title"] as? String == "kept" }
                })
        }
        log.stop()
        done.wait()

        let outcomes = log.all
        for server in servers { #expect(server.process.isRunning, "both processes stay alive") }
        // Every request was answered, within the deadline plus the margin, with a 2xx or a 503 problem.
        let unanswered = outcomes.filter { $0.status == nil }
        #expect(
            unanswered.isEmpty,
            "requests without an answer: \(unanswered.prefix(5).map { "\($0.method) on \($0.instance): \($0.failure ?? "")" })")
        let slow = outcomes.filter { $0.answered - $0.sent > Self.answerBound }
        #expect(slow.isEmpty, "answers later than the deadline + 10 s: \(slow.count)")
        let other = outcomes.filter { $0.status != nil && $0.status! / 100 != 2 && $0.status != 503 }
        #expect(other.isEmpty, "statuses other than 2xx and 503: \(Set(other.compactMap(\.status)).sorted())")
        let unavailable = outcomes.filter { $0.status == 503 }
        #expect(unavailable.allSatisfy { $0.contentType == "application/problem+json" && $0.retryAfter == "1" })
        // During the outage (sent after the stop returned, answered before the restart began) only 503s.
        let duringOutage = outcomes.filter { $0.sent >= stopped && $0.answered <= restarting }
        #expect(!duringOutage.isEmpty)
        #expect(duringOutage.allSatisfy { $0.status == 503 }, "outage statuses: \(Set(duringOutage.map { $0.status ?? 0 }).sorted())")

        // The timings, printed for the report (the machine is shared: not asserted).
        for instance in 0..<ports.count {
            let mine = outcomes.filter { $0.instance == instance }
            let first503 = mine.filter { $0.status == 503 && $0.answered >= stopping }.map(\.answered).min()
            let first2xx = mine.filter { $0.sent >= restarted && ($0.status ?? 0) / 100 == 2 }.map(\.answered).min()
            let maxOutage = mine.filter { $0.status == 503 }.map { $0.answered - $0.sent }.max()
            print(
                """
                postgres-load-fault instance=\(instance == 0 ? "A" : "B") requests=\(mine.count) \
                2xx=\(mine.filter { ($0.status ?? 0) / 100 == 2 }.count) 503=\(mine.filter { $0.status == 503 }.count) \
                stop_call_ms=\(Self.milliseconds(stopped - stopping)) \
                stop_to_first_503_ms=\(first503.map { Self.milliseconds($0 - stopping) } ?? -1) \
                slowest_503_ms=\(maxOutage.map(Self.milliseconds) ?? -1) \
                start_call_ms=\(Self.milliseconds(restarted - restarting)) \
                restart_to_first_2xx_ms=\(first2xx.map { Self.milliseconds($0 - restarted) } ?? -1)
                """)
        }
    }
}
