import Foundation
import TestSupport
import Testing

@testable import TodoData
@testable import TodoDataTestSupport
@testable import TodoServer

/// `PackedTodos` (the compact page value) and `TodoListViewModel`'s JSON: byte for byte what an
/// array of `TodoViewModel` writes, whatever the ids, titles, dates and base URL.
@Suite("PackedTodos and the list JSON")
struct TodoListJSONTests {
    /// The reference: the array of per-to-do view models, as the list was written before.
    private func reference(_ todos: [Todo], baseURL: String) -> String {
        var writer = JSONWriter(capacity: 16)
        todos.map { TodoViewModel($0, baseURL: baseURL) }.write(to: &writer)
        return String(decoding: writer.finish(), as: UTF8.self)
    }

    private func written(_ snapshots: PackedTodos, baseURL: String) -> String {
        let model = TodoListViewModel(items: snapshots, baseURL: baseURL)
        var writer = JSONWriter(capacity: model.jsonSizeHint)
        model.write(to: &writer)
        return String(decoding: writer.finish(), as: UTF8.self)
    }

    private let uuid = "0f8e7d6c-5b4a-4938-a7b6-c5d4e3f2a1b0"

    @Test("an empty page is [] and reads back as no to-dos")
    func empty() {
        #expect(written(PackedTodos(), baseURL: "http://h:1") == "[]")
        #expect(PackedTodos().isEmpty)
        #expect(Array(PackedTodos()) == [])
        #expect(TodoListViewModel(items: PackedTodos(), baseURL: "http://h:1").jsonSizeHint == 2)
    }

    @Test("exact bytes of a page: a UUID id as hex from its 16 bytes, a plain title copied, nulls")
    func exactPage() {
        let todos = [
            makeTodo(uuid, title: "Buy milk", order: -4, due: "2026-11-24", revision: 3),
            makeTodo("short-id", title: #"Say "hi" \ bye"#, completed: true),
        ]
        let snapshots = PackedTodos(todos)
        #expect(
            written(snapshots, baseURL: "http://h:1") == """
                [{"completed":false,"createdAt":"2026-11-22T10:00:00.000Z","dueDate":"2026-11-24","id":"\(uuid)","order":-4,\
                "title":"Buy milk","updatedAt":"2026-11-22T10:00:00.000Z","url":"http://h:1/todos/\(uuid)"},\
                {"completed":true,"createdAt":"2026-11-22T10:00:00.000Z","dueDate":null,"id":"short-id","order":null,\
                "title":"Say \\"hi\\" \\\\ bye","updatedAt":"2026-11-22T10:00:00.000Z","url":"http://h:1/todos/short-id"}]
                """)
    }

    @Test("flags: a UUID id is kept as 16 bytes, any other id as bytes; escapes are known per title and id")
    func flags() {
        let snapshots = PackedTodos([
            makeTodo(uuid, title: "plain"),
            makeTodo(uuid.uppercased(), title: "é non-ASCII, no escape"),
            makeTodo(#"quote"id"#, title: "tab\there"),
        ])
        snapshots.withEntries { entries, bytes in
            #expect(entries[0].uuid == TodoID16(uuid))
            #expect(entries[0].flags == [.live, .plainID, .plainTitle])
            #expect(entries[1].uuid == nil, "an upper-case UUID is not the server's form: kept as given")
            #expect(entries[1].flags == [.live, .otherID, .plainID, .plainTitle])
            #expect(entries[2].flags == [.live, .otherID])
            #expect(String(decoding: PackedTodos.otherID(entries[2], in: bytes), as: UTF8.self) == #"quote"id"#)
            #expect(String(decoding: PackedTodos.title(entries[1], in: bytes), as: UTF8.self) == "é non-ASCII, no escape")
        }
        #expect(snapshots.map(\.id) == [uuid, uuid.uppercased(), #"quote"id"#])
    }

    @Test("snapshots read back as the to-dos' Todo, and compare by value")
    func readBack() {
        let todos = [
            makeTodo(uuid, title: "Ünïcödé 😀", order: Int.min, due: "0001-01-01", revision: .max),
            makeTodo("x", title: "", completed: true, order: Int.max, due: "9999-12-31", created: "1969-12-31T23:59:59.999Z"),
        ]
        let snapshots = PackedTodos(todos)
        #expect(Array(snapshots) == todos)
        #expect(snapshots == PackedTodos(todos))
        #expect(snapshots != PackedTodos(Array(todos.reversed())))
        #expect(snapshots != PackedTodos([todos[0]]))
    }

    @Test("random pages write what the per-to-do view models write (ids, titles, years, base URLs)")
    func randomPages() {
        let seed = testSeed("TodoListJSONTests.randomPages")
        var generator = SplitMix64(seed: seed)
        let alphabet = Array("abcXYZ019 -_/é😀~\"\\\t\u{1}")
        let ids = UUIDGenerator()
        for round in 0..<60 {
            var todos: [Todo] = []
            for _ in 0..<Int.random(in: 0...25, using: &generator) {
                let id: String
                switch Int.random(in: 0..<4, using: &generator) {
                case 0: id = "id-\(Int.random(in: 0...999, using: &generator))"
                case 1: id = String((0..<Int.random(in: 1...12, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
                default: id = ids.makeID()
                }
                let title = String(
                    (0..<Int.random(in: 0...40, using: &generator)).map { _ in
                        // Mostly plain ASCII titles (the store's compact form), some anything.
                        round % 3 == 0 ? alphabet.randomElement(using: &generator)! : "abcXYZ019 -_/~".randomElement(using: &generator)!
                    })
                let created = Int64.random(in: -62_135_596_800_000...253_402_300_799_999, using: &generator)
                let wide = Int.random(in: 0..<10, using: &generator) == 0
                todos.append(
                    Todo(
                        id: id, title: title, completed: Bool.random(using: &generator),
                        order: Bool.random(using: &generator) ? Int.random(in: Int.min...Int.max, using: &generator) : nil,
                        dueDate: Bool.random(using: &generator)
                            ? CalendarDay(daysSinceEpoch: Int.random(in: -719_162...3_000_000, using: &generator)) : nil,
                        createdAt: Timestamp(millisecondsSinceEpoch: wide ? 260_000_000_000_000 : created),
                        updatedAt: Timestamp(millisecondsSinceEpoch: Int64.random(in: 0...300_000_000_000_000, using: &generator)),
                        revision: UInt64.random(in: 1...UInt64.max, using: &generator)))
            }
            let base = ["http://h:1", "https://example.com", #"http://we"ird"#][round % 3]
            #expect(written(PackedTodos(todos), baseURL: base) == reference(todos, baseURL: base), "seed \(seed), round \(round)")
        }
    }

    @Test("a page read from the in-memory store writes what its to-dos' view models write")
    func fromTheStore() throws {
        let todos = [
            makeTodo(uuid, title: "Plain ASCII title", order: 1),
            makeTodo("not-a-uuid", title: #"needs "escapes" \ here"#, order: 2),
            makeTodo("ffffffff-ffff-4fff-bfff-ffffffffffff", title: "café ☕", order: 3),
            makeTodo("00000000-0000-4000-8000-000000000000", title: "", order: 4),
            makeTodo("esc\"id", title: "Upper AND lower", order: 5),
        ]
        let store = InMemoryTodoStore(todos)
        var page: TodoPage?
        let stored = todos.map { todo -> Todo in
            var todo = todo
            todo.revision = 1
            return todo
        }
        // The first four: every id plain, so the page goes in one step (an id that needs escapes
        // sends its whole page member by member).
        store.list(TodoQuery(limit: 4)) { page = try? $0.get() }
        #expect(written(try #require(page).items, baseURL: "http://h:1") == reference(Array(stored.prefix(4)), baseURL: "http://h:1"))
        store.list(TodoQuery()) { page = try? $0.get() }
        #expect(written(try #require(page).items, baseURL: "http://h:1") == reference(stored, baseURL: "http://h:1"))
        // A plain title changed into one that needs escapes, and back: the flag follows the title.
        store.update(
            id: uuid, change: TodoChange(title: #"now "quoted""#), condition: .none,
            at: Timestamp(millisecondsSinceEpoch: 1_800_000_000_000)
        ) { _ in }
        store.update(
            id: "not-a-uuid", change: TodoChange(title: "now plain"), condition: .none,
            at: Timestamp(millisecondsSinceEpoch: 1_800_000_000_000)
        ) { _ in }
        store.update(
            id: "esc\"id", change: TodoChange(completed: true), condition: .none,
            at: Timestamp(millisecondsSinceEpoch: 1_800_000_000_000)
        ) { _ in }
        store.list(TodoQuery(sort: TodoSort(.title), limit: 4)) { page = try? $0.get() }
        let firstFour = written(try #require(page).items, baseURL: "http://h:1")
        #expect(firstFour.contains(#""title":"now \"quoted\"""#))
        store.list(TodoQuery(sort: TodoSort(.title))) { page = try? $0.get() }
        let text = written(try #require(page).items, baseURL: "http://h:1")
        #expect(text.contains(#""title":"now \"quoted\"""#))
        #expect(text.contains(#""title":"now plain""#))
        #expect(text.contains(#""completed":true,"createdAt":"2026-11-22T10:00:00.000Z","dueDate":null,"id":"esc\"id""#))
        var all: [Todo] = []
        for todo in stored {
            store.todo(id: todo.id) { if let found = try? $0.get() { all.append(found) } }
        }
        all.sort(by: TodoSort(.title).areInIncreasingOrder)
        #expect(text == reference(all, baseURL: "http://h:1"))
        #expect(firstFour == reference(Array(all.prefix(4)), baseURL: "http://h:1"))
    }

    @Test("a UUID id found by its string comes back as that string, revision and title from the store")
    func singleByID() throws {
        let store = InMemoryTodoStore([makeTodo(uuid, title: "One", revision: 9)])
        var found: Todo??
        store.todo(id: uuid) { found = try? $0.get() }
        let answer = try #require(found)
        let todo = try #require(answer)
        #expect(todo.id == uuid)
        #expect(todo.title == "One")
        #expect(todo.revision == 1)
        store.todo(id: uuid.uppercased()) { found = try? $0.get() }
        #expect(found == .some(nil), "ids are exact: an upper-case spelling names no to-do")
    }

    @Test("JSONWriter joins a url from bytes, escaping only what needs it")
    func joinedURL() {
        func joined(_ head: String, _ tail: String) -> String {
            var writer = JSONWriter(capacity: 4)
            var head = head, tail = tail
            head.withUTF8 { h in tail.withUTF8 { t in writer.string(utf8: h, "/todos/", utf8: t) } }
            return String(decoding: writer.finish(), as: UTF8.self)
        }
        #expect(joined("http://h:1", "abc") == #""http://h:1/todos/abc""#)
        #expect(joined(#"http://"h"#, "a\\b") == #""http://\"h/todos/a\\b""#)
        #expect(joined("", "") == #""/todos/""#)
    }
}
