import EventHTTP

/// Writes the to-dos module's view models as JSON responses; it decides nothing.
public struct TodosView: TodosDisplay {
    private let serializer: JSONSerializer

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
