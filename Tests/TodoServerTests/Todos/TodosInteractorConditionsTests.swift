import LockTracing
import Testing

@testable import TodoData
@testable import TodoDataTestSupport
@testable import TodoServer

@Suite("TodosInteractor: If-None-Match, If-Match: *, changes that change nothing")
struct TodosInteractorConditionsTests: TodosInteractorFixture {
    let clock = FakeClock("2026-11-22T10:00:00.000Z")

    private func noneMatch(_ match: RevisionCondition.Match) -> RevisionCondition { RevisionCondition(ifNoneMatch: match) }

    @Test("If-Match: * on a missing to-do is 412; with owners on it is not found (it may be another owner's), for PATCH, PUT and DELETE")
    func ifMatchAnyOnMissingWithOwners() throws {
        let any = RevisionCondition(ifMatch: .any)
        let plain = interactor(FakeTodoStore())
        let owners = TodosInteractor(
            store: FakeTodoStore(), clock: FakeClock("2026-11-22T10:00:00.000Z"), ids: SequentialIDs(), ownersOn: true)
        let refused = TodosError.conditionFailed(id: "gone", current: nil, failure: .ifMatchAnyButMissing)
        for (interactor, expected) in [
            (plain, refused), (owners, TodosError.notFound(id: "gone")),
            (owners.owned(by: Owner(name: "alice")!), TodosError.notFound(id: "gone")),
        ] {
            #expect(run { interactor.patch(id: "gone", with: TodoChange(title: "x"), condition: any) }.map(\.failure) == .some(expected))
            #expect(run { interactor.replace(id: "gone", with: TodoDraft(title: "x"), condition: any) }.map(\.failure) == .some(expected))
            #expect(run { interactor.delete(id: "gone", condition: any) }.map(\.failure) == .some(expected))
        }
    }

    @Test("If-None-Match any or the current revision refuses PATCH, PUT and DELETE with 412 and the current tag; the store keeps the to-do")
    func ifNoneMatch() throws {
        let original = makeTodo("a", title: "Old", revision: 7)
        let store = FakeTodoStore([original])
        let todos = interactor(store)
        let refused = TodosError.conditionFailed(id: "a", current: 7, failure: .ifNoneMatch)
        #expect(
            run { todos.replace(id: "a", with: draft(#"{"title":"New"}"#), condition: noneMatch(.any)) }
                == .failure(refused))
        #expect(
            run { todos.patch(id: "a", with: patch(#"{"title":"New"}"#), condition: noneMatch(.oneOf([7]))) }
                == .failure(refused))
        #expect(
            run { todos.delete(id: "a", condition: noneMatch(.oneOf([6, 7]))) }.map { $0.map { 0 } } == .failure(refused))
        #expect(store.stored["a"] == original)
        #expect(store.callNames == ["update", "update", "remove"])
        #expect(
            store.calls.withTracedLock { $0 }.first
                == .update(
                    id: "a", change: .replacement(title: "New", completed: false, order: nil, dueDate: nil),
                    condition: RevisionCondition(ifNoneMatch: .any), time: clock.now()))
        #expect(store.calls.withTracedLock { $0 }.last == .remove(id: "a", condition: RevisionCondition(ifNoneMatch: .oneOf([6, 7]))))

        let changed = try #require(
            run { todos.patch(id: "a", with: patch(#"{"title":"New"}"#), condition: noneMatch(.oneOf([6]))) }
        ).get()
        #expect(changed.title == "New")
        #expect(changed.revision == 8)
    }

    @Test("If-Match: * on a missing to-do is 412 with no tag for PATCH, PUT and DELETE; other conditions leave it 404")
    func ifMatchAnyOnMissing() {
        let todos = interactor(FakeTodoStore([makeTodo("other")]))
        let refused = TodosError.conditionFailed(id: "nope", current: nil, failure: .ifMatchAnyButMissing)
        let any = RevisionCondition(ifMatch: .any)
        #expect(run { todos.patch(id: "nope", with: patch("{}"), condition: any) } == .failure(refused))
        #expect(run { todos.replace(id: "nope", with: draft(#"{"title":"x"}"#), condition: any) } == .failure(refused))
        #expect(run { todos.delete(id: "nope", condition: any) }.map { $0.map { 0 } } == .failure(refused))
        let tagged = RevisionCondition(ifMatch: .oneOf([3]), ifNoneMatch: .any)
        #expect(run { todos.patch(id: "nope", with: patch("{}"), condition: tagged) } == .failure(.notFound(id: "nope")))
        #expect(run { todos.delete(id: "nope", condition: tagged) }.map { $0.map { 0 } } == .failure(.notFound(id: "nope")))
    }

    @Test("a patch or replacement that changes nothing keeps revision and updatedAt, and is answered with the to-do")
    func noOp() throws {
        let original = makeTodo("a", title: "Same", completed: true, order: 2, due: "2026-12-01", revision: 5)
        let store = FakeTodoStore([original])
        let todos = interactor(store)
        clock.set("2026-11-23T09:00:00.000Z")
        for body in ["{}", #"{"title":" Same ","completed":true}"#, #"{"order":2,"dueDate":"2026-12-01"}"#] {
            let answer = try #require(
                run { todos.patch(id: "a", with: patch(body), condition: RevisionCondition(ifMatch: .oneOf([5]))) }
            ).get()
            #expect(answer == original, "\(body)")
        }
        let replaced = try #require(
            run {
                todos.replace(
                    id: "a", with: draft(#"{"title":"Same","completed":true,"order":2,"dueDate":"2026-12-01"}"#), condition: .none)
            }
        ).get()
        #expect(replaced == original)
        #expect(store.stored["a"] == original)

        // A title that differs only in case, or a field cleared, is a change.
        let recased = try #require(run { todos.patch(id: "a", with: patch(#"{"title":"same"}"#), condition: .none) }).get()
        #expect(recased.revision == 6)
        #expect(recased.updatedAt.description == "2026-11-23T09:00:00.000Z")
        let cleared = try #require(run { todos.patch(id: "a", with: patch(#"{"dueDate":null}"#), condition: .none) }).get()
        #expect(cleared.revision == 7)
        #expect(cleared.dueDate == nil)
    }

    @Test("titles that are canonically equivalent but spelled differently are a change (stored byte for byte)")
    func canonicallyEquivalentTitle() throws {
        let store = FakeTodoStore([makeTodo("a", title: "caf\u{E9}", revision: 1)])
        let changed = try #require(
            run {
                interactor(store).patch(id: "a", with: patch("{\"title\":\"cafe\u{301}\"}"), condition: .none)
            }
        ).get()
        #expect(changed.revision == 2)
        #expect(Array(try #require(store.stored["a"]).title.utf8) == Array("cafe\u{301}".utf8))
    }
}

extension Result {
    /// The failure, nil on success.
    fileprivate var failure: Failure? {
        if case .failure(let failure) = self { failure } else { nil }
    }
}
