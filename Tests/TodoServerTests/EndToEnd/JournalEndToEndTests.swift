import Dispatch
import Foundation
import Glibc
import Logging
import TestSupport
import Testing

@testable import TodoData
@testable import TodoDataTestSupport
@testable import TodoServer

/// The journaled server over real sockets while its disk stalls or fails (the journal's fault seam).
@Suite("End to end: the journal under a stalled or failing disk", .tags(.endToEnd))
struct JournalEndToEndTests {

    private func server(
        _ directory: DataDirectory, fsync: FsyncPolicy, faults: JournalFaults, threads: Int = 1
    ) throws -> (LiveServer, DurableTodoStore) {
        let store = try directory.open(fsync: fsync, faults: faults)
        let live = try LiveServer(configure: { $0.threads = threads }, store: store)
        return (live, store)
    }

    /// Sends `method target` on its own thread; the answer (or nil: no answer) lands in the box.
    private func inBackground(
        _ live: LiveServer, _ method: String, _ target: String, body: String? = nil
    ) -> LockedBox<HTTPResponseSnapshot?> {
        let box = LockedBox<HTTPResponseSnapshot?>()
        let port = live.port
        Thread.detachNewThread {
            let client = try? TestHTTPClient(port: port, receiveTimeoutSeconds: 30)
            box.set(try? client?.request(method, target, headers: [("Content-Type", "application/json")], body: body))
        }
        return box
    }

    @Test(
        "while a write waits for the disk, reads and /healthz answer and do not see it; it is visible once written",
        arguments: [(FsyncPolicy.always, JournalFaults.Operation.sync), (.never, .write), (.interval, .write)])
    func stalledWriter(policy: FsyncPolicy, operation: JournalFaults.Operation) throws {
        let directory = DataDirectory()
        let gate = WriterGate(operation: operation)
        let (live, store) = try server(directory, fsync: policy, faults: gate.faults)
        defer {
            gate.release()
            live.application.stop()
            store.close()
        }
        gate.arm()
        let post = inBackground(live, "POST", "/todos", body: #"{"title":"waits for the disk"}"#)
        #expect(gate.waitUntilReached())
        // The one loop is free: reads and health answer while the write waits, without the change.
        let list = try live.request("GET", "/todos")
        #expect(list.status == 200)
        #expect(list.array.isEmpty)
        #expect(list.header("X-Total-Count") == "0")
        let health = try live.request("GET", "/healthz")
        #expect(health.status == 200)
        #expect(health.object["status"] as? String == "ok")
        #expect(post.get() == nil, "no answer before the record is written")

        gate.release()
        let created = try #require(eventually { post.get() ?? nil })
        #expect(created.status == 201)
        let after = try live.request("GET", "/todos")
        #expect(after.array.map { $0["title"] as? String } == ["waits for the disk"])
    }

    @Test("stopping with a stalled writer: the drain ends at the grace period, the journal gives up, the write is never answered as done")
    func stopWithStalledWriter() throws {
        let directory = DataDirectory()
        let gate = WriterGate(operation: .sync)
        let (live, store) = try server(directory, fsync: .always, faults: gate.faults)
        defer { gate.release() }
        gate.arm()
        let post = inBackground(live, "POST", "/todos", body: #"{"title":"never durable"}"#)
        #expect(gate.waitUntilReached())
        let stopped = LockedBox<Bool>()
        let application = live.application
        Thread.detachNewThread {
            application.stop()  // SIGTERM's path: drain with the 2 s grace period, then stop
            stopped.set(store.close(waitingAtMost: 0.2))
        }
        #expect(eventually { stopped.get() != nil }, "the stop must not wait for the stalled disk")
        #expect(stopped.get() == false, "the journal could not close: its writer is stalled")
        #expect(eventually { post.get() != nil })
        #expect((post.get() ?? nil)?.status != 201, "a write that is not durable is never answered as done")
    }

    @Test(
        "while the store refuses writes /healthz answers 503 with the reason, 200 again after; a refused change's revision is never reused")
    func refusalAndRevisions() throws {
        let directory = DataDirectory()
        let fault = JournalFaultSwitch()
        let (live, store) = try server(directory, fsync: .always, faults: fault.faults, threads: 2)
        defer {
            live.application.stop()
            store.close()
        }
        let created = try live.request("POST", "/todos", headers: [("Content-Type", "application/json")], body: #"{"title":"kept"}"#)
        #expect(created.status == 201)
        let id = try #require(created.object["id"] as? String)
        #expect(created.header("ETag") == "\"1\"")

        fault.set(.sync, EIO)
        let refused = try live.request(
            "PATCH", "/todos/\(id)", headers: [("Content-Type", "application/json")], body: #"{"title":"never stored"}"#)
        #expect(refused.status == 503)
        #expect(refused.header("Content-Type") == "application/problem+json")
        let health = try live.request("GET", "/healthz")
        #expect(health.status == 503)
        #expect(health.object["status"] as? String == "unavailable")
        #expect((health.object["reason"] as? String)?.contains("cannot fsync") == true)
        #expect(health.object["todos"] as? Int == 1)
        #expect(try live.request("HEAD", "/healthz").status == 503)
        let unchanged = try live.request("GET", "/todos/\(id)")
        #expect(unchanged.object["title"] as? String == "kept")
        #expect(unchanged.header("ETag") == "\"1\"")
        let deleted = try live.request("DELETE", "/todos/\(id)")
        #expect(deleted.status == 503)
        #expect(try live.request("GET", "/todos/\(id)").status == 200, "a refused delete hides nothing")

        fault.set(.sync, nil)
        let patched = try live.request(
            "PATCH", "/todos/\(id)", headers: [("Content-Type", "application/json")], body: #"{"title":"stored"}"#)
        #expect(patched.status == 200)
        // "2" and "3" would have named the refused changes: they name nothing, ever.
        #expect(patched.header("ETag") == "\"4\"")
        let revalidated = try live.request("GET", "/todos/\(id)", headers: [("If-None-Match", "\"2\"")])
        #expect(revalidated.status == 200)
        #expect(revalidated.object["title"] as? String == "stored")
        let healthy = try live.request("GET", "/healthz")
        #expect(healthy.status == 200)
        #expect(healthy.object["status"] as? String == "ok")
        #expect(healthy.object["reason"] == nil)
    }

    @Test(
        "the binary: a flipped bit mid-journal exits 3 naming file and offset; TODO_RECOVER=truncate starts with the prefix and logs the loss"
    )
    func damagedJournalProcess() throws {
        let directory = DataDirectory()
        let store = try directory.open(fsync: .interval)
        for index in 0..<20 {
            _ = try #require(storeAnswer { store.insert(makeTodo("t\(index)", title: "Title \(index)"), completion: $0) }).get()
        }
        store.close()
        var bytes = try FileIO.readAll(directory.journal)
        // Record 10 of 20 starts after 10 equal-sized records ("Title 0" … "Title 9" are 7 bytes each).
        let recordBytes = (bytes.count - JournalFormat.journalHeaderSize - 10) / 20
        let damaged = JournalFormat.journalHeaderSize + 10 * recordBytes
        bytes[damaged + 12] ^= 0x40
        try Data(bytes).write(to: URL(fileURLWithPath: directory.journal))

        let refused = try ServerProcess(arguments: ["--port", "0", "--data-dir", directory.path])
        #expect(refused.waitForExit() == 3)
        let output = refused.remainingOutput
        #expect(output.contains("\(directory.journal) is damaged at byte \(damaged)"))
        #expect(output.contains("9 whole record(s) follow it"))
        #expect(!output.contains("listening"))

        let recovering = try ServerProcess(
            arguments: ["--port", "0", "--host", "127.0.0.1", "--data-dir", directory.path],
            environment: ["TODO_RECOVER": "truncate"])
        let port = try recovering.waitForPort()
        let list = try TestHTTPClient(port: port).request("GET", "/todos")
        #expect(list.header("X-Total-Count") == "10")
        recovering.signal(SIGTERM)
        #expect(recovering.waitForExit() == 0)
        let log = recovering.remainingOutput
        #expect(log.contains("recovered with losses"))
        #expect(log.contains("journal-0000000000000001.log was damaged at byte \(damaged): kept the 10 record(s) before it"))
        #expect(directory.files().contains(JournalFormat.journalName(1) + ".damaged"))
    }
}
