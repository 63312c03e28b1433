import Testing

@testable import TodoData
@testable import TodoDataTestSupport
@testable import TodoServer

/// One writer of a to-do's JSON (`TodoJSON`): the item, an element of the list, an element of
/// upcoming and the feed event's `todo` are the same bytes for the same to-do, whichever path
/// (one step through a cursor, or member by member with escapes) writes them.
@Suite("One to-do JSON writer: item, list, upcoming and feed agree")
struct TodoJSONTests {
    private static let base = "http://h:1"
    private static let uuid = "0f8e7d6c-5b4a-4938-a7b6-c5d4e3f2a1b0"

    /// Titles with quotes, a backslash, control characters, non-ASCII and emoji; ids that are a
    /// UUID, other text and need an escape; null and set due dates, from year 1 to past 9999.
    private static let todos: [Todo] = [
        makeTodo(uuid, title: "Buy milk", order: 3, due: "2026-11-24", revision: 2),
        makeTodo("short-id", title: #"Say "hi" \ bye"#, completed: true),
        makeTodo("controls", title: "tab\there\nnew \u{1} \u{1F} \u{7F} \u{9F}", due: "2026-11-22"),
        makeTodo("ünï", title: "Ünïcödé ✓ 😀 👩‍👩‍👧 </script>", order: -9_007_199_254_740_991, due: "0001-01-01"),
        makeTodo(#"quote"id"#, title: "", order: Int.max, created: "1969-12-31T23:59:59.999Z", revision: .max),
        {
            var far = makeTodo(uuid.replacingOccurrences(of: "0f", with: "1a"), title: "far away")
            far.dueDate = CalendarDay(daysSinceEpoch: 3_000_000)
            return far
        }(),
    ]

    private func written(_ body: (inout JSONWriter) -> Void) -> String {
        var writer = JSONWriter(capacity: 8)
        body(&writer)
        return String(decoding: writer.finish(), as: UTF8.self)
    }

    private func item(_ todo: Todo) -> String {
        written { TodoViewModel(todo, baseURL: Self.base).write(to: &$0) }
    }

    @Test("the list's elements are the items, alone and together")
    func list() {
        for todo in Self.todos {
            let model = TodoListViewModel(items: PackedTodos([todo]), baseURL: Self.base)
            #expect(written { model.write(to: &$0) } == "[\(item(todo))]", "\(todo.title)")
        }
        let all = TodoListViewModel(items: PackedTodos(Self.todos), baseURL: Self.base)
        #expect(written { all.write(to: &$0) } == "[\(Self.todos.map(item).joined(separator: ","))]")
        // Ids and titles that need no escape, years 0 to 9999: the whole page in one step.
        let clean = [Self.todos[0], Self.todos[3]]
        let oneStep = TodoListViewModel(items: PackedTodos(clean), baseURL: Self.base)
        #expect(written { oneStep.write(to: &$0) } == "[\(clean.map(item).joined(separator: ","))]")
    }

    @Test("upcoming's elements are the items, in any section")
    func upcoming() {
        let data = UpcomingData(sections: [
            .init(relativeDate: .today, items: Self.todos),
            .init(relativeDate: .nextWeek, items: [Self.todos[2]]),
        ])
        let model = UpcomingViewModel(data, baseURL: Self.base)
        let expected =
            #"{"message":null,"sections":[{"items":["# + Self.todos.map(item).joined(separator: ",")
            + #"],"relativeDate":"today","title":"Today"},{"items":["# + item(Self.todos[2])
            + #"],"relativeDate":"nextWeek","title":"Next week"}]}"#
        #expect(written { model.write(to: &$0) } == expected)
    }

    @Test("the feed's created and updated events carry the item as their todo")
    func feed() {
        for todo in Self.todos {
            let tag = EntityTag(revision: todo.revision).description.replacingOccurrences(of: "\"", with: #"\""#)
            for change in [FeedChange.created(todo), .updated(todo)] {
                let event = FeedSession.viewModel(.change(position: "p.1.2", change), baseURL: Self.base)
                #expect(String(decoding: event.data, as: UTF8.self) == #"{"todo":\#(item(todo)),"etag":"\#(tag)"}"#)
            }
        }
    }

    @Test("through the pipeline: GET item, list and upcoming show each to-do as the same bytes")
    func pipeline() async throws {
        let store = InMemoryTodoStore()
        let stored = [
            makeTodo(Self.uuid, title: #"Say "hi" — ünï 😀"#, order: 1, due: "2026-11-22"),
            makeTodo("plain", title: "Buy milk", due: "2026-11-23"),
            makeTodo("controls", title: "tab\there", due: "2026-11-26"),
            makeTodo("no-date", title: "Someday"),
        ]
        for todo in stored { store.insert(todo) { _ in } }
        // Sunday 22 November 2026: the 22nd is today, the 23rd tomorrow, the 26th next week.
        let client = try InProcessClient(store: store, clock: FakeClock("2026-11-22T10:00:00.000Z"))
        var items: [String: String] = [:]
        for todo in stored {
            let answer = await client.request(.get, Route.todoPath(id: todo.id), headers: ["Host": "h:1"])
            #expect(answer.status == 200)
            items[todo.id] = answer.text
        }
        let list = await client.request(.get, "/todos", headers: ["Host": "h:1"])
        let listed = list.array.map { $0["id"] as? String ?? "" }
        #expect(Set(listed) == Set(stored.map(\.id)))
        #expect(list.text == "[\(listed.map { items[$0] ?? "" }.joined(separator: ","))]")

        let upcoming = await client.request(.get, "/todos/upcoming?tz=UTC", headers: ["Host": "h:1"])
        let sections = try #require(upcoming.object["sections"] as? [[String: Any]])
        #expect(sections.count == 3)
        let rebuilt = sections.map { section in
            let ids = (section["items"] as? [[String: Any]] ?? []).map { $0["id"] as? String ?? "" }
            return #"{"items":["# + ids.map { items[$0] ?? "" }.joined(separator: ",")
                + #"],"relativeDate":"\#(section["relativeDate"] ?? "")","title":"\#(section["title"] ?? "")"}"#
        }
        #expect(upcoming.text == #"{"message":null,"sections":["# + rebuilt.joined(separator: ",") + "]}")
    }

    @Test("a to-do's path and url come from the route table's /todos/{id} row")
    func paths() {
        let row = Route.table.first { if case .todo = $0.route { true } else { false } }
        #expect(row?.template == "\(Route.todoPathPrefix){id}")
        #expect(Route.todoPath(id: "abc") == "/todos/abc")
        #expect(Route(path: Route.todoPath(id: "abc")) == .todo(id: "abc"))
        #expect(Route.todoURL(baseURL: "http://h:1", id: Self.uuid) == "http://h:1/todos/\(Self.uuid)")
        #expect(TodoViewModel(Self.todos[0], baseURL: "http://h:1").url == "http://h:1/todos/\(Self.uuid)")
    }
}
