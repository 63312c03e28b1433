import Testing

@testable import TodoData
@testable import TodoDataTestSupport

@Suite("TodoChange")
struct TodoChangeTests {
    let todo = makeTodo("a", title: "Old", completed: false, order: 3, due: "2026-11-24", revision: 4)

    @Test("applied sets what it names, keeps the rest, and never touches id, revision or times")
    func applied() {
        let untouched = TodoChange().applied(to: todo)
        #expect(untouched == todo)
        #expect(untouched.hasSameContent(as: todo))

        let changed = TodoChange(title: "New", completed: true, order: .set(-9), dueDate: .set(CalendarDay("2027-01-02")!)).applied(
            to: todo)
        #expect(changed.title == "New")
        #expect(changed.titleKey == TitleKey("New"), "the sort key follows the title")
        #expect(changed.completed == true)
        #expect(changed.order == -9)
        #expect(changed.dueDate == CalendarDay("2027-01-02"))
        #expect(changed.id == "a")
        #expect(changed.revision == 4)
        #expect(changed.createdAt == todo.createdAt)
        #expect(changed.updatedAt == todo.updatedAt)

        let cleared = TodoChange(order: .clear, dueDate: .clear).applied(to: todo)
        #expect(cleared.order == nil)
        #expect(cleared.dueDate == nil)
        #expect(cleared.title == "Old")
        #expect(cleared.completed == false)

        let onlyCompleted = TodoChange(completed: true).applied(to: todo)
        #expect(onlyCompleted.completed == true)
        #expect(onlyCompleted.order == 3)
        #expect(onlyCompleted.dueDate == CalendarDay("2026-11-24"))
    }

    @Test("replacement sets every field; nil clears order and due date")
    func replacement() {
        let change = TodoChange.replacement(title: "Whole", completed: true, order: nil, dueDate: nil)
        #expect(change == TodoChange(title: "Whole", completed: true, order: .clear, dueDate: .clear))
        let replaced = change.applied(to: todo)
        #expect(replaced.title == "Whole")
        #expect(replaced.completed == true)
        #expect(replaced.order == nil)
        #expect(replaced.dueDate == nil)
        let kept = TodoChange.replacement(title: "Old", completed: false, order: 3, dueDate: CalendarDay("2026-11-24")).applied(to: todo)
        #expect(kept.hasSameContent(as: todo), "replacing with the same fields changes nothing")
    }

    @Test("a title equal only after Unicode normalisation is another title (byte for byte)")
    func canonicalTitles() {
        let composed = makeTodo("a", title: "caf\u{E9}")
        let decomposed = TodoChange(title: "cafe\u{301}").applied(to: composed)
        #expect(!decomposed.hasSameContent(as: composed))
        #expect(Array(decomposed.title.utf8) == Array("cafe\u{301}".utf8))
    }

    @Test("the shared update decision: missing, refused, unchanged, updated with the next revision and the time")
    func decision() {
        let time = FakeClock.timestamp("2026-11-23T08:00:00.000Z")
        let next: (Todo) -> UInt64 = { $0.revision + 1 }
        #expect(
            StoreUpdate.decide(
                stored: nil, change: TodoChange(title: "x"), condition: RevisionCondition(ifMatch: .any), at: time, nextRevision: next)
                == .notFound)
        #expect(
            StoreUpdate.decide(
                stored: todo, change: TodoChange(title: "x"), condition: RevisionCondition(ifMatch: .oneOf([3])), at: time,
                nextRevision: next)
                == .conditionFailed(todo))
        #expect(
            StoreUpdate.decide(
                stored: todo, change: TodoChange(title: "Old", order: .set(3)), condition: .none, at: time, nextRevision: next)
                == .unchanged(todo))
        var expected = todo
        expected.title = "x"
        expected.revision = 5
        expected.updatedAt = time
        #expect(
            StoreUpdate.decide(
                stored: todo, change: TodoChange(title: "x"), condition: RevisionCondition(ifMatch: .oneOf([4])), at: time,
                nextRevision: next)
                == .updated(expected))
    }
}
