import Dispatch
import Foundation
import Logging
import Testing

@testable import TodoData
@testable import TodoDataTestSupport

@Suite("DurableTodoStore")
struct DurableTodoStoreTests {
    /// Waits for a completion that may come on another thread (the journal's sync thread).
    func wait<T>(_ call: (@escaping (Result<T, StoreError>) -> Void) -> Void) throws -> T {
        let answer = storeAnswer(call)
        return try #require(answer).get()
    }

    func titles(_ store: DurableTodoStore) throws -> [String: String] {
        Dictionary(uniqueKeysWithValues: try wait { store.list(TodoQuery(limit: Int.max), completion: $0) }.items.map { ($0.id, $0.title) })
    }

    /// 2026-11-22T11:00:00.000Z: when the tests' changes happen.
    static let later = FakeClock.timestamp("2026-11-22T11:00:00.000Z")

    /// Sets the title, unconditionally.
    func retitle(_ store: DurableTodoStore, _ id: String, _ title: String) throws -> StoreUpdate {
        try wait { store.update(id: id, change: TodoChange(title: title), condition: .none, at: Self.later, completion: $0) }
    }

    @Test("a record encodes and decodes to itself, optional fields and non-ASCII titles included")
    func recordRoundTrip() throws {
        let records: [JournalRecord] = [
            .put(makeTodo("a", title: "Kaffee ☕️ kaufen", completed: true, order: -3, due: "2026-12-24", revision: 7)),
            .put(makeTodo("b", title: "", revision: 8)),
            .remove(id: "a", revision: 9),
            .removeAll(revision: 10),
        ]
        var bytes = JournalFormat.journalHeader(generation: 1)
        for record in records { record.frame(into: &bytes) }
        let scanned = JournalFormat.scanRecords(bytes, from: JournalFormat.journalHeaderSize)
        #expect(scanned.records == records.map { OwnedRecord($0) })
        #expect(scanned.trailingBytes == 0)
        #expect(scanned.validLength == bytes.count)
    }

    @Test("changes survive closing and reopening, and each to-do's revision continues after the recovered one")
    func reopen() throws {
        let directory = DataDirectory()
        var store = try directory.open()
        let a = try wait { store.insert(makeTodo("a", title: "A"), completion: $0) }
        _ = try wait { store.insert(makeTodo("b", title: "B"), completion: $0) }
        #expect(try wait { store.insert(makeTodo("c", title: "C"), completion: $0) }.revision == 1)
        var a2 = makeTodo("a", title: "A2", revision: 2)
        a2.updatedAt = Self.later
        #expect(try retitle(store, "a", "A2") == .updated(a2))
        #expect(try retitle(store, "a", "A2") == .unchanged(a2))
        #expect(
            try wait { store.remove(id: "b", condition: RevisionCondition(ifMatch: .oneOf([2])), completion: $0) }
                == .conditionFailed(makeTodo("b", title: "B", revision: 1)))
        #expect(try wait { store.remove(id: "b", condition: RevisionCondition(ifMatch: .oneOf([1])), completion: $0) } == .removed)
        #expect(a.revision == 1)
        store.close()

        store = try directory.open()
        #expect(store.report == RecoveryReport(todos: 2, snapshotTodos: 0, journalRecords: 5, droppedBytes: 0, generation: 1))
        #expect(try titles(store) == ["a": "A2", "c": "C"])
        #expect(try wait { store.todo(id: "a", completion: $0) } == a2)
        #expect(try wait { store.todo(id: "c", completion: $0) }?.revision == 1)
        #expect(
            try retitle(store, "a", "A3")
                == .updated(
                    {
                        var a3 = a2; a3.title = "A3"; a3.revision = 3; return a3
                    }()))
        #expect(try wait { store.insert(makeTodo("d"), completion: $0) }.revision == 1)
        try wait { store.removeAll(completion: $0) }
        store.close()

        store = try directory.open()
        #expect(store.count == 0)
        let page = try wait { store.list(TodoQuery(), completion: $0) }
        #expect(page.items == TodoPage(items: [], total: 0).items && page.total == 0)
        #expect(page.lastChange == store.changes.head)
        store.close()
    }

    @Test("with fsync=always the answer comes after the record is in the file")
    func answerAfterWrite() throws {
        let directory = DataDirectory()
        let store = try directory.open(fsync: .always)
        defer { store.close() }
        for index in 0..<20 {
            _ = try wait { store.insert(makeTodo("t\(index)", title: "T\(index)"), completion: $0) }
            let bytes = try FileIO.readAll(directory.journal)
            #expect(JournalFormat.scanRecords(bytes, from: JournalFormat.journalHeaderSize).records.count == index + 1)
        }
    }

    @Test("many threads writing with fsync=always share fsyncs and every answer arrives")
    func groupCommit() throws {
        let directory = DataDirectory()
        let store = try directory.open(fsync: .always)
        let answered = LockedBox<Int>()
        answered.set(0)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for index in 0..<50 {
                let semaphore = DispatchSemaphore(value: 0)
                store.insert(makeTodo("t\(thread)-\(index)")) { result in
                    if case .success = result { answered.update { $0! + 1 } }
                    semaphore.signal()
                }
                semaphore.wait()
            }
        }
        #expect(answered.get() == 400)
        store.close()
        #expect(try directory.open().count == 400)
    }

    @Test("a record torn by a crash is cut off; the records before it are recovered and appending goes on")
    func tornTail() throws {
        let directory = DataDirectory()
        var store = try directory.open()
        for index in 0..<3 { _ = try wait { store.insert(makeTodo("t\(index)", title: "T\(index)"), completion: $0) } }
        store.close()
        let whole = try FileIO.readAll(directory.journal)
        try Data(whole.dropLast(7)).write(to: URL(fileURLWithPath: directory.journal))

        store = try directory.open()
        #expect(store.report.todos == 2)
        #expect(
            store.report.droppedBytes == whole.count - 7 - ((whole.count - JournalFormat.journalHeaderSize) / 3) * 2
                - JournalFormat.journalHeaderSize)
        #expect(try titles(store) == ["t0": "T0", "t1": "T1"])
        _ = try wait { store.insert(makeTodo("t9", title: "T9"), completion: $0) }
        store.close()

        store = try directory.open()
        #expect(store.report.droppedBytes == 0)
        #expect(try titles(store) == ["t0": "T0", "t1": "T1", "t9": "T9"])
        store.close()
    }

    @Test("a last record whose bytes were damaged fails its checksum and is dropped, not half-applied")
    func damagedTail() throws {
        let directory = DataDirectory()
        var store = try directory.open()
        _ = try wait { store.insert(makeTodo("a", title: "kept"), completion: $0) }
        _ = try wait {
            store.update(id: "a", change: TodoChange(title: "damaged", completed: true), condition: .none, at: Self.later, completion: $0)
        }
        store.close()
        var bytes = try FileIO.readAll(directory.journal)
        bytes[bytes.count - 12] ^= 0x20
        try Data(bytes).write(to: URL(fileURLWithPath: directory.journal))

        store = try directory.open()
        #expect(try wait { store.todo(id: "a", completion: $0) } == makeTodo("a", title: "kept", revision: 1))
        #expect(store.report.droppedBytes > 0)
        store.close()
    }

    @Test("a journal of an unknown format version is refused with a message that says what to do")
    func unknownVersion() throws {
        let directory = DataDirectory()
        var store = try directory.open()
        _ = try wait { store.insert(makeTodo("a"), completion: $0) }
        store.close()
        var bytes = try FileIO.readAll(directory.journal)
        bytes[8] = 9
        try Data(bytes).write(to: URL(fileURLWithPath: directory.journal))

        let error = #expect(throws: JournalError.self) { store = try directory.open() }
        #expect(error == .unknownVersion(path: directory.journal, found: 9, supported: 1))
        #expect("\(error!)".contains("has format version 9, but this server reads version 1"))
    }

    @Test("a second server on the same data directory is refused")
    func locked() throws {
        let directory = DataDirectory()
        let store = try directory.open()
        defer { store.close() }
        #expect(throws: JournalError.locked(path: directory.path + "/LOCK")) { try directory.open() }
    }

    @Test("past the size threshold the journal is compacted into a snapshot and the old journal removed")
    func compaction() throws {
        let directory = DataDirectory()
        var store = try directory.open(fsync: .interval, compactionBytes: 4096)
        for index in 0..<100 {
            _ = try wait { store.insert(makeTodo("todo-\(index)", title: "Title number \(index)"), completion: $0) }
        }
        _ = try wait { store.remove(id: "todo-0", condition: .none, completion: $0) }
        _ = try retitle(store, "todo-50", "Fifty")
        _ = try retitle(store, "todo-50", "Fifty again")
        store.close()
        let files = directory.files()
        #expect(files.contains { $0.hasPrefix("snapshot-") })
        #expect(!files.contains(JournalFormat.journalName(1)))
        #expect(files.filter { $0.hasPrefix("journal-") }.count == 1)

        store = try directory.open(fsync: .interval, compactionBytes: 4096)
        #expect(store.count == 99)
        #expect(store.report.snapshotTodos > 0)
        #expect(store.report.snapshotTodos + store.report.journalRecords >= 99)
        #expect(try titles(store)["todo-99"] == "Title number 99")
        #expect(try wait { store.todo(id: "todo-50", completion: $0) }?.revision == 3, "revisions survive the snapshot")
        #expect(try wait { store.todo(id: "todo-99", completion: $0) }?.revision == 1)
        #expect(try retitle(store, "todo-50", "Fifty once more") != .notFound)
        #expect(try wait { store.todo(id: "todo-50", completion: $0) }?.revision == 4)
        #expect(try wait { store.insert(makeTodo("next"), completion: $0) }.revision == 1)
        store.close()
    }
}
