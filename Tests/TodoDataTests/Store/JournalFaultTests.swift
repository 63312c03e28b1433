import Dispatch
import Foundation
import Glibc
import Logging
import TestSupport
import Testing

@testable import TodoData
@testable import TodoDataTestSupport

/// The write-ahead journal under real faults: EIO (through the seam), a full disk (a small
/// tmpfs, whose last page takes part of a record: a real short write), flipped bits and a
/// missing snapshot in real files.
@Suite("Journal faults")
struct JournalFaultTests {

    private func stored(_ store: DurableTodoStore, _ id: String) -> Todo? {
        var found: Todo?
        store.todo(id: id) { found = (try? $0.get()) ?? nil }
        return found
    }

    /// 2026-11-22T11:00:00.000Z: when the tests' changes happen.
    private let later = FakeClock.timestamp("2026-11-22T11:00:00.000Z")

    /// The change that sets `title`, unconditionally.
    private func retitle(
        _ store: DurableTodoStore, _ id: String, _ title: String, completion: @escaping (Result<StoreUpdate, StoreError>) -> Void
    ) {
        store.update(id: id, change: TodoChange(title: title), condition: .none, at: later, completion: completion)
    }

    /// `makeTodo` as changed at `later`.
    private func changed(_ id: String, title: String, revision: UInt64) -> Todo {
        var todo = makeTodo(id, title: title, revision: revision)
        todo.updatedAt = later
        return todo
    }

    private func fileSize(_ path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : -1
    }

    @Test(
        "EIO on write or fsync: the change is refused, not applied, its revision never reused; the next change goes through",
        arguments: [(FsyncPolicy.always, JournalFaults.Operation.sync), (.always, .write), (.never, .write)])
    func failedWriteLeavesMemory(policy: FsyncPolicy, operation: JournalFaults.Operation) throws {
        let directory = DataDirectory()
        let fault = JournalFaultSwitch()
        var store = try directory.open(fsync: policy, faults: fault.faults)
        let a = try #require(try storeAnswer { store.insert(makeTodo("a", title: "A"), completion: $0) }?.get())
        #expect(a.revision == 1)
        let sizeBefore = fileSize(directory.journal)

        fault.set(operation, EIO)
        let failedUpdate = storeAnswer { retitle(store, "a", "never stored", completion: $0) }
        guard case .failure(let error) = failedUpdate else {
            Issue.record("the update must fail: \(String(describing: failedUpdate))"); return
        }
        #expect(error.reason.contains("Input/output error"))
        #expect(stored(store, "a") == a, "a refused change must not be visible")
        #expect(store.writeRefusal?.contains("Input/output error") == true)
        #expect(fileSize(directory.journal) == sizeBefore, "the refused record is cut off the file")
        let failedDelete = storeAnswer { store.remove(id: "a", condition: .none, completion: $0) }
        guard case .failure = failedDelete else { Issue.record("the delete must fail"); return }
        #expect(stored(store, "a") == a, "a refused delete must not hide the to-do")

        fault.set(operation, nil)
        let b = try #require(try storeAnswer { retitle(store, "a", "B", completion: $0) }?.get())
        // Revisions 2 and 3 of "a" went to the refused change and removal: never handed out again.
        #expect(b == .updated(changed("a", title: "B", revision: 4)))
        #expect(store.writeRefusal == nil)
        store.close()

        store = try directory.open()
        #expect(stored(store, "a") == changed("a", title: "B", revision: 4))
        #expect(store.report.droppedBytes == 0)
        #expect(try storeAnswer { store.insert(makeTodo("c"), completion: $0) }?.get().revision == 1)
        store.close()
    }

    @Test("changes prepared on top of one another fail together when their write fails; none is applied, the next batch goes through")
    func dependentChangesFailTogether() throws {
        let directory = DataDirectory()
        let (gate, store) = try directory.openGated()
        defer { store.close() }
        let a = try #require(try storeAnswer { store.insert(makeTodo("a", title: "A"), completion: $0) }?.get())
        // One write stalls; the delete and the update queue behind it and are prepared as one
        // batch, the update on top of the delete (it would find nothing).
        gate.arm()
        let first = pendingAnswer { store.insert(makeTodo("x", title: "X"), completion: $0) }
        #expect(gate.waitUntilReached())
        let removal = pendingAnswer { store.remove(id: "a", condition: .none, completion: $0) }
        let update = pendingAnswer { retitle(store, "a", "after the delete", completion: $0) }
        gate.failFollowing(with: EIO)
        gate.release()
        #expect(eventually { first.get() != nil && removal.get() != nil && update.get() != nil })
        #expect((try? first.get()?.get())?.revision == 1)
        guard case .failure = removal.get(), case .failure = update.get() else {
            Issue.record("both must fail: \(String(describing: removal.get())), \(String(describing: update.get()))")
            return
        }
        #expect(stored(store, "a") == a)
        gate.failFollowing(with: nil)
        let next = try #require(try storeAnswer { retitle(store, "a", "A2", completion: $0) }?.get())
        #expect(next == .updated(changed("a", title: "A2", revision: 3)), "revision 2 went to the refused delete")
    }

    @Test("a failed write refuses every owner's changes and applies none of them; each owner's revisions go on past the refused ones")
    func failedWriteAcrossOwners() throws {
        let directory = DataDirectory()
        let (gate, store) = try directory.openGated()
        let alice = Owner(name: "alice")!, bob = Owner(name: "bob")!
        let a = try #require(try storeAnswer { store.owned(by: alice).insert(makeTodo("a", title: "A"), completion: $0) }?.get())
        let b = try #require(try storeAnswer { store.owned(by: bob).insert(makeTodo("b", title: "B"), completion: $0) }?.get())
        let s = try #require(try storeAnswer { store.insert(makeTodo("s", title: "S"), completion: $0) }?.get())
        // One write stalls; alice's, bob's and the shared list's changes queue behind it as one
        // batch, whose write fails.
        gate.arm()
        let stalled = pendingAnswer { store.owned(by: bob).insert(makeTodo("stall", title: "written"), completion: $0) }
        #expect(gate.waitUntilReached())
        let update = pendingAnswer { retitle(store.store(of: alice), "a", "never stored", completion: $0) }
        let removal = pendingAnswer { store.owned(by: bob).remove(id: "b", condition: .none, completion: $0) }
        let clear = pendingAnswer { store.removeAll(completion: $0) }
        let insert = pendingAnswer { store.owned(by: alice).insert(makeTodo("a2", title: "never stored"), completion: $0) }
        gate.failFollowing(with: EIO)
        gate.release()
        #expect(
            eventually { stalled.get() != nil && update.get() != nil && removal.get() != nil && clear.get() != nil && insert.get() != nil })
        #expect((try? stalled.get()?.get())?.revision == 1)
        guard case .failure = update.get(), case .failure = removal.get(), case .failure = clear.get(), case .failure = insert.get() else {
            Issue.record(
                "all four must fail: \(String(describing: update.get())), \(String(describing: removal.get())), \(String(describing: clear.get())), \(String(describing: insert.get()))"
            )
            return
        }
        #expect(stored(store.store(of: alice), "a") == a)
        #expect(stored(store.store(of: alice), "a2") == nil)
        #expect(stored(store.store(of: bob), "b") == b)
        #expect(stored(store, "s") == s)
        // Refused for everyone while the disk fails.
        #expect(store.owned(by: alice).writeRefusal?.contains("Input/output error") == true)
        #expect(store.owned(by: bob).writeRefusal?.contains("Input/output error") == true)
        #expect(store.writeRefusal?.contains("Input/output error") == true)
        guard case .failure = storeAnswer({ store.owned(by: bob).insert(makeTodo("b2"), completion: $0) }) else {
            Issue.record("bob's change must be refused too")
            return
        }

        gate.failFollowing(with: nil)
        // Revision 2 of alice's "a" went to the refused change: never handed out again.
        #expect(
            try storeAnswer { retitle(store.store(of: alice), "a", "A2", completion: $0) }?.get()
                == .updated(changed("a", title: "A2", revision: 3)))
        #expect(try storeAnswer { store.owned(by: bob).remove(id: "b", condition: .none, completion: $0) }?.get() == .removed)
        #expect(store.writeRefusal == nil)
        store.close()

        let reopened = try directory.open()
        #expect(stored(reopened.store(of: alice), "a") == changed("a", title: "A2", revision: 3))
        #expect(stored(reopened.store(of: alice), "a2") == nil)
        #expect(stored(reopened.store(of: bob), "b") == nil)
        #expect(stored(reopened.store(of: bob), "stall")?.title == "written")
        #expect(stored(reopened, "s") == s)
        #expect(reopened.report.todos == 3)
        reopened.close()
    }

    @Test("a full disk (a real short write on tmpfs): the change is refused and cut off; writes resume once space is back, no restart")
    func diskFull() throws {
        let mount = try TmpfsMount(bytes: 256 << 10)
        defer { mount.unmount() }
        let path = mount.path + "/data"
        let store = try DurableTodoStore(
            directory: path, fsync: .always, compactionBytes: 64 << 20,
            logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        defer { store.close() }
        for index in 0..<5 { _ = try storeAnswer { store.insert(makeTodo("t\(index)", title: "T\(index)"), completion: $0) }?.get() }
        let journal = path + "/" + JournalFormat.journalName(1)
        let good = fileSize(journal)
        // Fill the file system; the journal's last page keeps `slack` free bytes.
        let filler = mount.path + "/filler"
        let fd = open(filler, O_WRONLY | O_CREAT, 0o644)
        let block = [UInt8](repeating: 1, count: 4096)
        while block.withUnsafeBytes({ write(fd, $0.baseAddress, 4096) }) > 0 {}
        close(fd)
        let slack = 4096 - good % 4096
        // A record longer than the slack: part of it fits (a short write), the rest gets ENOSPC.
        let title = String(repeating: "x", count: slack + 50)
        let refused = storeAnswer { store.insert(makeTodo("big", title: title), completion: $0) }
        guard case .failure(let error) = refused else { Issue.record("the write must fail: \(String(describing: refused))"); return }
        #expect(error.reason.contains("No space left on device"))
        #expect(fileSize(journal) == good, "the short write's bytes are cut off")
        #expect(stored(store, "big") == nil)
        #expect(store.writeRefusal?.contains("No space left on device") == true)
        let stillFull = storeAnswer { store.insert(makeTodo("big", title: title), completion: $0) }
        guard case .failure = stillFull else { Issue.record("still full: must fail"); return }

        unlink(filler)
        let written = try #require(try storeAnswer { store.insert(makeTodo("big", title: title), completion: $0) }?.get())
        #expect(written.revision == 1, "a new to-do starts at 1")
        #expect(store.writeRefusal == nil)
        #expect(stored(store, "big")?.title == title)
        store.close()
        let reopened = try DurableTodoStore(
            directory: path, fsync: .always, compactionBytes: 64 << 20,
            logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        #expect(reopened.report == RecoveryReport(todos: 6, snapshotTodos: 0, journalRecords: 6, droppedBytes: 0, generation: 1))
        reopened.close()
    }

    /// Offsets of the records in a journal file.
    private func recordOffsets(_ bytes: [UInt8]) -> [Int] {
        var offsets: [Int] = []
        var offset = JournalFormat.journalHeaderSize
        while offset + 8 <= bytes.count {
            offsets.append(offset)
            let length = Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2]) << 16 | Int(bytes[offset + 3]) << 24
            offset += 8 + length
        }
        return offsets
    }

    @Test("a flipped bit mid-journal with records after it stops the start, naming file and offset; --recover truncate keeps the prefix")
    func flippedBitMidJournal() throws {
        let directory = DataDirectory()
        var store = try directory.open(fsync: .interval)
        for index in 0..<100 { _ = try storeAnswer { store.insert(makeTodo("t\(index)", title: "Title \(index)"), completion: $0) }?.get() }
        store.close()
        var bytes = try FileIO.readAll(directory.journal)
        let damaged = recordOffsets(bytes)[49]
        bytes[damaged + 20] ^= 0x08
        try Data(bytes).write(to: URL(fileURLWithPath: directory.journal))

        let error = #expect(throws: JournalError.self) { store = try directory.open() }
        guard case .corrupt(let path, let offset, let reason) = error else { Issue.record("\(String(describing: error))"); return }
        #expect(path == directory.journal)
        #expect(offset == damaged)
        #expect(reason.contains("50 whole record(s) follow it"))
        #expect("\(error!)".contains("is damaged at byte \(damaged)"))
        #expect("\(error!)".contains("--recover truncate"))
        #expect(try FileIO.readAll(directory.journal) == bytes, "a refused start changes nothing")

        store = try directory.open(recovery: .truncate)
        #expect(store.count == 49)
        #expect(store.report.losses.count == 1)
        #expect(store.report.losses.first?.contains("damaged at byte \(damaged): kept the 49 record(s) before it") == true)
        #expect(directory.files().contains(JournalFormat.journalName(1) + ".damaged"))
        #expect(try storeAnswer { store.insert(makeTodo("after"), completion: $0) }?.get().revision == 1)
        #expect(stored(store, "t48")?.revision == 1)
        store.close()

        store = try directory.open()
        #expect(store.count == 50)
        #expect(store.report.losses.isEmpty)
        store.close()
    }

    /// A directory 100 to-dos went into with compactions every 4096 bytes: its store, closed, and
    /// the name of its newest snapshot.
    private func compacted() throws -> (directory: DataDirectory, store: DurableTodoStore, snapshot: String) {
        let directory = DataDirectory()
        let store = try directory.open(fsync: .interval, compactionBytes: 4096)
        for index in 0..<100 {
            _ = try storeAnswer { store.insert(makeTodo("t\(index)", title: "Title number \(index)"), completion: $0) }?.get()
        }
        store.close()
        return (directory, store, try #require(directory.files().last { $0.hasPrefix("snapshot-") }))
    }

    @Test("a missing snapshot the journal continues from stops the start; --recover truncate replays what is left and says so")
    func missingSnapshot() throws {
        let (directory, closed, snapshot) = try compacted()
        var store = closed
        let generation = try #require(JournalFormat.generation(of: snapshot, prefix: "snapshot-", suffix: ".bin"))
        let journal = try #require(directory.files().last { $0.hasPrefix("journal-") })
        let kept = try FileIO.readAll(directory.path + "/" + journal)
        let inJournal = JournalFormat.scanRecords(kept, from: JournalFormat.journalHeaderSize).records.count
        unlink(directory.path + "/" + snapshot)

        let error = #expect(throws: JournalError.self) { store = try directory.open() }
        #expect(error == .missing(path: directory.path + "/" + snapshot, neededBy: directory.path + "/" + journal))
        #expect("\(error!)".contains("\(snapshot) is missing, but \(directory.path + "/" + journal) continues from it"))

        store = try directory.open(recovery: .truncate)
        #expect(store.count == inJournal)
        #expect(store.count < 100)
        #expect(store.report.losses == ["\(snapshot) was missing: the to-dos it held are lost; the journals after it were replayed"])
        #expect(store.report.generation == generation + 1)
        store.close()
        store = try directory.open()
        #expect(store.count == inJournal)
        store.close()
    }

    @Test("a damaged snapshot stops the start naming file and offset; --recover truncate keeps its whole records and the journal after it")
    func damagedSnapshot() throws {
        let (directory, closed, snapshot) = try compacted()
        var store = closed
        let path = directory.path + "/" + snapshot
        var bytes = try FileIO.readAll(path)
        let header = JournalFormat.snapshotHeaderSize
        let count = Int(bytes[28]) | Int(bytes[29]) << 8
        let firstLength = Int(bytes[header]) | Int(bytes[header + 1]) << 8
        let second = header + 8 + firstLength
        bytes[second + 12] ^= 0x02
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        let error = #expect(throws: JournalError.self) { store = try directory.open() }
        #expect(error == .corrupt(path: path, offset: second, reason: "snapshot holds 1 of \(count) records"))

        store = try directory.open(recovery: .truncate)
        #expect(store.report.snapshotTodos == 1)
        #expect(store.report.losses == ["\(snapshot) was damaged at byte \(second): kept 1 of its \(count) to-dos"])
        #expect(directory.files().contains(snapshot + ".damaged"))
        #expect(store.count == 1 + store.report.journalRecords)
        store.close()
        store = try directory.open()
        #expect(store.report.losses.isEmpty)
        #expect(store.count == 1 + 100 - count)
        store.close()
    }

    @Test("a torn last record (nothing whole after it) is still cut off by itself")
    func tornTailStillCut() throws {
        let directory = DataDirectory()
        var store = try directory.open()
        for index in 0..<10 { _ = try storeAnswer { store.insert(makeTodo("t\(index)"), completion: $0) }?.get() }
        store.close()
        var bytes = try FileIO.readAll(directory.journal)
        let last = recordOffsets(bytes)[9]
        bytes[last + 12] ^= 0x01
        bytes.removeLast(3)
        try Data(bytes).write(to: URL(fileURLWithPath: directory.journal))
        store = try directory.open()
        #expect(store.count == 9)
        #expect(store.report.droppedBytes == bytes.count - last)
        store.close()
    }
}
