import Dispatch
import Foundation
import Glibc
import TestSupport
import Testing

@testable import TodoData
@testable import TodoServer

@Suite("End to end: kill -9 under load, fsync=always", .tags(.endToEnd))
struct CrashEndToEndTests {
    /// What one to-do may look like after the crash: titles it may have (nil: absent).
    private typealias Outcomes = [String: Set<String?>]

    /// What the writers learned: per to-do id the states the server may have kept, and the titles
    /// of creates whose answer never came (their id is unknown; each may exist at most once).
    private final class Ledger: @unchecked Sendable {
        private let lock = NSLock()
        var outcomes: Outcomes = [:]
        var unansweredCreates: Set<String> = []
        var acknowledged = 0
        var unexpected: [String] = []

        func with<T>(_ body: (Ledger) -> T) -> T { lock.withLock { body(self) } }
    }

    @Test("every write answered 2xx is there after restart, and nothing that was not written", arguments: [1, 2, 3])
    func killNine(round: Int) throws {
        let directory = NSTemporaryDirectory() + "todo-crash-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let arguments = [
            "--port", "0", "--host", "127.0.0.1", "--threads", "2", "--data-dir", directory, "--fsync", "always",
            "--compaction-bytes", "65536",
        ]
        var known: Outcomes = [:]
        var checked = 0
        // The kill moments are random; the seed (TODO_TEST_SEED reproduces a run) is printed.
        let seed = ProcessInfo.processInfo.environment["TODO_TEST_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 1...UInt64.max)
        print("CrashEndToEndTests round \(round): seed \(seed)")
        var random = SplitMix64(seed: seed)
        // Three kills per run, each at a different random moment, on the same data directory.
        for attempt in 0..<3 {
            let server = try ServerProcess(arguments: arguments)
            let port = try server.waitForPort()
            let ledger = Ledger()
            ledger.outcomes = known
            // The kill comes at a random moment: after a random number of answered writes past the
            // first 30 (counted in answers, not time, so that slow builds reach it too).
            let killAfter = 30 + Int.random(in: 0...400, using: &random)
            let pid = server.process.processIdentifier
            Thread.detachNewThread {
                eventually(timeout: .seconds(30), interval: .milliseconds(1)) { ledger.with { $0.acknowledged } >= killAfter }
                _ = Glibc.kill(pid, SIGKILL)
            }
            let writers = DispatchGroup()
            for writer in 0..<6 {
                writers.enter()
                Thread.detachNewThread { [self] in
                    drive(port: port, writer: "r\(round)k\(attempt)w\(writer)", ledger: ledger)
                    writers.leave()
                }
            }
            writers.wait()
            #expect(server.waitForExit() != nil)
            #expect(ledger.unexpected.isEmpty, "\(ledger.unexpected.prefix(5))")

            let restarted = try ServerProcess(arguments: arguments)
            let recovered = try restarted.waitForLine(containing: "recovered")
            let after = try allTodos(port: try restarted.waitForPort())
            restarted.signal(SIGTERM)
            #expect(restarted.waitForExit() == 0)
            let problems = verify(after, against: ledger)
            #expect(problems.isEmpty, "kill after \(killAfter) answers (seed \(seed)): \(problems.prefix(5)) (\(recovered))")
            checked += ledger.acknowledged
            known = after.mapValues { [$0] }
        }
        #expect(checked >= 90, "too few writes were made to mean anything: \(checked)")
        print("crash round \(round): 3 kills, \(checked) acknowledged writes checked, \(known.count) to-dos at the end")
    }

    @Test("a data directory whose journal has an unknown format version stops start-up with a clear message")
    func unknownVersion() throws {
        let directory = NSTemporaryDirectory() + "todo-version-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var header = JournalFormat.journalHeader(generation: 1)
        header[8] = 2
        try Data(header).write(to: URL(fileURLWithPath: directory + "/" + JournalFormat.journalName(1)))
        let server = try ServerProcess(arguments: ["--port", "0", "--data-dir", directory])
        #expect(server.waitForExit() == 3)
        let output = server.remainingOutput
        #expect(output.contains("cannot open the data directory"))
        #expect(output.contains("has format version 2, but this server reads version 1"))
        #expect(!output.contains("listening"))
    }

    /// Creates, patches and (every third) deletes its own to-dos until the server dies, noting
    /// what each answer proves.
    private func drive(port: Int, writer: String, ledger: Ledger) {
        guard let client = try? TestHTTPClient(port: port, receiveTimeoutSeconds: 5) else { return }
        for index in 0... {
            let created = "\(writer)-\(index)-v0", patched = "\(writer)-\(index)-v1"
            guard let creation = try? client.request("POST", "/todos", body: #"{"title":"\#(created)"}"#) else {
                ledger.with { _ = $0.unansweredCreates.insert(created) }
                return
            }
            guard creation.status == 201, let id = creation.object["id"] as? String else {
                return ledger.with { $0.unexpected.append("POST \(creation.status)") }
            }
            ledger.with {
                $0.outcomes[id] = [created]
                $0.acknowledged += 1
            }
            let patch = try? client.request("PATCH", "/todos/\(id)", body: #"{"title":"\#(patched)","completed":true}"#)
            guard let patch else { return ledger.with { $0.outcomes[id] = [created, patched] } }
            guard patch.status == 200 else { return ledger.with { $0.unexpected.append("PATCH \(patch.status)") } }
            ledger.with {
                $0.outcomes[id] = [patched]
                $0.acknowledged += 1
            }
            guard index % 3 == 0 else { continue }
            guard let deletion = try? client.request("DELETE", "/todos/\(id)") else {
                return ledger.with { $0.outcomes[id] = [patched, nil] }
            }
            guard deletion.status == 204 else { return ledger.with { $0.unexpected.append("DELETE \(deletion.status)") } }
            ledger.with {
                $0.outcomes[id] = [nil]
                $0.acknowledged += 1
            }
        }
    }

    /// Every to-do, id → title, paging through the list; also checks `completed` matches the title.
    private func allTodos(port: Int) throws -> [String: String] {
        var titles: [String: String] = [:]
        let client = try TestHTTPClient(port: port)
        var offset = 0
        while true {
            let page = try client.request("GET", "/todos?limit=1000&offset=\(offset)&sort=createdAt")
            try #require(page.status == 200)
            for item in page.array {
                let id = try #require(item["id"] as? String), title = try #require(item["title"] as? String)
                #expect((item["completed"] as? Bool) == title.hasSuffix("-v1"), "\(title) half-applied")
                titles[id] = title
            }
            if page.array.count < 1000 { return titles }
            offset += 1000
        }
    }

    private func verify(_ after: [String: String], against ledger: Ledger) -> [String] {
        var problems: [String] = []
        var unanswered = ledger.unansweredCreates
        for (id, allowed) in ledger.outcomes where !allowed.contains(after[id]) {
            problems.append("\(id): \(after[id] ?? "absent"), expected one of \(allowed.map { $0 ?? "absent" })")
        }
        for (id, title) in after where ledger.outcomes[id] == nil {
            if unanswered.remove(title) == nil { problems.append("\(id) '\(title)' was never written") }
        }
        return problems
    }
}
