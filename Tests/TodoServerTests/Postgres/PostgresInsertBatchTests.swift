import LockTracing
import PostgresLoop
import Synchronization
import TestSupport
import Testing

@testable import TodoData
@testable import TodoDataTestSupport
@testable import TodoServer

/// Inserts in batches (`PostgresInsertBatcher`, `TodoSQL.insertMany`) on a real cluster: what each
/// request is answered, what the database holds, and how many statements made it.
@Suite(.enabled(if: PostgresTestCluster.isAvailable), .tags(.postgres))
struct PostgresInsertBatchTests {
    /// `todos` inserted through `store` all in one turn of its own loop (so that which go alone and
    /// which together is decided, not timed), each answer by its to-do's place.
    static func insertInOneTurn(_ store: PostgresTodoStore, _ todos: [(todo: Todo, owner: Owner)]) throws -> [Result<Todo, StoreError>] {
        let answers = Mutex<[Int: Result<Todo, StoreError>]>([:])
        let box = UncheckedBox(store)
        store.ownLoop.execute {
            for (index, item) in todos.enumerated() {
                box.value.owned(by: item.owner).insert(item.todo) { result in answers.withTracedLock { $0[index] = result } }
            }
        }
        let all = try #require(eventually { answers.withTracedLock { $0.count == todos.count ? $0 : nil } })
        return (0..<todos.count).map { all[$0]! }
    }

    /// Transactions that wrote change rows: one per insert statement.
    static func transactions(_ session: PostgresTestSession) throws -> Int {
        let rows = try #require(session.blockingQuery("SELECT count(DISTINCT xid) FROM todo_event_rows")).get()
        return try #require(rows[0, 0].flatMap { Int($0) })
    }

    static func todo(_ number: Int, title: String) -> Todo {
        SQLFixtures.todo(
            number, title: title, completed: number % 3 == 0, order: number % 2 == 0 ? number : nil,
            due: number % 4 == 0 ? CalendarDay(daysSinceEpoch: 20_000 + number) : nil, created: 1_763_812_800_000 + Int64(number))
    }

    /// 200 POSTs at once on one loop with 2 connections: the first two go alone, the 198 that wait
    /// go 32 a statement as each answer comes (7 statements), so 9 transactions in all; each is
    /// answered its own to-do, field for field, and the counts, lists and feed rows agree.
    @Test func postsThatWaitForTheConnectionsGoTogetherAndEachGetsItsOwnToDo() async throws {
        let configuration = try await ContractStore.freshDatabase("insert_batch")
        let store = try PostgresTodoStore(configuration: configuration, insertBatch: 32)
        defer { store.close() }
        let alice = try #require(Owner(name: "alice"))
        // Titles that an array literal must quote or escape, and some that look like its syntax.
        let titles = [
            "plain", "with \"quotes\"", "back\\slash", "{braces}", "a,b", " spaced ", "NULL", "ünïcödé 🥛", "e\u{301}", "\\\"", "'single'",
        ]
        let todos = (1...200).map {
            (todo: Self.todo($0, title: titles[$0 % titles.count] + " \($0)"), owner: $0 % 5 == 0 ? alice : .shared)
        }
        let answers = try Self.insertInOneTurn(store, todos)
        for (answer, sent) in zip(answers, todos) {
            #expect(try answer.get() == sent.todo)
        }
        let session = try await PostgresTestSession.open(configuration)
        defer { session.close() }
        #expect(try Self.transactions(session) == 9)
        for owner in [Owner.shared, alice] {
            let expected = todos.filter { $0.owner == owner }.map(\.todo)
            let count = try await withCheckedThrowingContinuation { continuation in
                store.statistics(owner: owner).whenReady { continuation.resume(with: $0) }
            }
            #expect(count.count == expected.count)
            for todo in expected {
                let stored = try await withCheckedThrowingContinuation { continuation in
                    store.owned(by: owner).todo(id: todo.id) { continuation.resume(with: $0) }
                }
                #expect(stored == todo)
            }
        }
        let events = try #require(session.blockingQuery("SELECT count(*), count(DISTINCT id) FROM todo_event_rows WHERE kind = 'c'")).get()
        #expect(events[0, 0] == "200" && events[0, 1] == "200")
    }

    /// With `insertBatch` 1 every POST is its own statement, as before batches.
    @Test func aBatchOfOneSendsEachAlone() async throws {
        let configuration = try await ContractStore.freshDatabase("insert_single")
        let store = try PostgresTodoStore(configuration: configuration, insertBatch: 1)
        defer { store.close() }
        let todos = (1...40).map { (todo: Self.todo($0, title: "t\($0)"), owner: Owner.shared) }
        for (answer, sent) in zip(try Self.insertInOneTurn(store, todos), todos) { #expect(try answer.get() == sent.todo) }
        let session = try await PostgresTestSession.open(configuration)
        defer { session.close() }
        #expect(try Self.transactions(session) == 40)
    }

    /// A row the database refuses (an id already taken) fails its batch's statement; each of the
    /// batch is then tried alone, so only that POST fails and the others are made.
    @Test func aRowTheDatabaseRefusesFailsOnlyItsOwnRequest() async throws {
        let configuration = try await ContractStore.freshDatabase("insert_refused")
        let store = try PostgresTodoStore(configuration: configuration, insertBatch: 32)
        defer { store.close() }
        let taken = Self.todo(1, title: "first")
        _ = try Self.insertInOneTurn(store, [(taken, .shared)])[0].get()
        // Two alone, then a batch of 20 holding the taken id in its middle.
        var todos = (2...22).map { (todo: Self.todo($0, title: "t\($0)"), owner: Owner.shared) }
        todos.insert((Self.todo(1, title: "again"), .shared), at: 12)
        let answers = try Self.insertInOneTurn(store, todos)
        for (index, (answer, sent)) in zip(answers, todos).enumerated() {
            if index == 12 {
                guard case .failure(let error) = answer else {
                    Issue.record("the taken id was inserted again: \(answer)")
                    continue
                }
                #expect(error.reason.contains("duplicate key"), "\(error.reason)")
                #expect(error.retryAfter == nil)
            } else {
                #expect(try answer.get() == sent.todo)
            }
        }
        let count = try await withCheckedThrowingContinuation { continuation in store.statistics { continuation.resume(with: $0) } }
        #expect(count.count == 22)
        let stored = try await withCheckedThrowingContinuation { continuation in store.todo(id: taken.id) { continuation.resume(with: $0) }
        }
        #expect(stored?.title == "first")
    }

    /// The array literal against PostgreSQL's own reading of it: every value comes back as it went,
    /// NULL as NULL.
    @Test func theArrayLiteralReadsBackAsTheValuesGiven() async throws {
        let configuration = try await ContractStore.freshDatabase("array_literal")
        let session = try await PostgresTestSession.open(configuration)
        defer { session.close() }
        let values: [String?] = [
            "", " ", "NULL", "null", nil, "\"", "\\", "\\\"", "{", "}", "{a,b}", ",", "a b", "\t tab", "line\nbreak", "ünï 🥛",
            "e\u{301}", "'", "$1", "{\"x\":\"y\"}", String(repeating: "x", count: 5000),
        ]
        let rows = try #require(
            session.blockingQuery(
                "SELECT v IS NULL, coalesce(v, '') FROM unnest($1::text[]) WITH ORDINALITY AS u(v, n) ORDER BY n",
                [TodoSQL.arrayLiteral(values)])
        ).get()
        #expect(rows.count == values.count)
        for (row, value) in values.enumerated() {
            #expect(rows[row, 0] == (value == nil ? "t" : "f"))
            #expect(rows[row, 1] == (value ?? ""), "value \(row)")
        }
    }
}
