import Testing

@testable import TodoData
@testable import TodoDataTestSupport
@testable import TodoServer

/// The prologue the interactor's suites share: an interactor on the suite's clock with sequential
/// ids, request models decoded from bodies and queries as the view decodes them, and a use case
/// run whose store answers at once.
protocol TodosInteractorFixture {
    var clock: FakeClock { get }
}

extension TodosInteractorFixture {
    func interactor(_ store: FakeTodoStore) -> TodosInteractor {
        TodosInteractor(store: store, clock: clock, ids: SequentialIDs())
    }

    func draft(_ json: String, sourceLocation: SourceLocation = #_sourceLocation) -> TodoDraft {
        decoded(TodoInputDecoder().draft(from: Array(json.utf8)), json, sourceLocation) ?? TodoDraft(title: "")
    }

    func patch(_ json: String, sourceLocation: SourceLocation = #_sourceLocation) -> TodoChange {
        decoded(TodoInputDecoder().patch(from: Array(json.utf8)), json, sourceLocation) ?? TodoChange()
    }

    func listQuery(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> TodoQuery {
        decoded(TodoListQueryDecoder().query(from: QueryParameters(text)), text, sourceLocation) ?? TodoQuery()
    }

    /// Runs a use case whose store answers at once: its result, nil if it did not answer.
    func run<T>(_ call: () -> Pending<Result<T, TodosError>>) -> Result<T, TodosError>? {
        var answer: Result<T, TodosError>?
        call().whenReady { answer = $0 }
        return answer
    }

    private func decoded<T>(_ result: Result<T, TodoRequestError>, _ text: String, _ location: SourceLocation) -> T? {
        if case .failure(let error) = result { Issue.record("\(text) does not decode: \(error)", sourceLocation: location) }
        return try? result.get()
    }
}
