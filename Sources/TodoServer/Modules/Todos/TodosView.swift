import EventHTTP

/// The to-dos module's HTTP adapter: decodes bodies, queries and conditional headers into the
/// module's request models (`TodosView+Decoding.swift`) and writes view models as JSON responses.
public struct TodosView: TodosDisplay {
    private let serializer: JSONSerializer
    let inputDecoder = TodoInputDecoder()
    let queryDecoder = TodoListQueryDecoder()

    public init(serializer: JSONSerializer) {
        self.serializer = serializer
    }

    public func displayTodo(_ model: ResponseViewModel<TodoViewModel>, respond: Respond) {
        respond(serializer.response(for: model))
    }

    public func displayTodoList(_ model: ResponseViewModel<[TodoViewModel]>, respond: Respond) {
        respond(serializer.response(for: model))
    }

    public func displayNoContent(_ model: ResponseViewModel<NoBody>, respond: Respond) {
        respond(serializer.response(for: model))
    }

    public func displayProblem(_ model: ResponseViewModel<ProblemDetails>, respond: Respond) {
        respond(serializer.response(for: model))
    }
}
