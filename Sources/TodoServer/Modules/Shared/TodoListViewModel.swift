import TodoData

/// A page of to-dos as the JSON body shows it (an array of `TodoViewModel`'s shape: every field
/// present, null when unset, RFC 3339 times, the absolute url), made by the presenter from the
/// page's packed to-dos (read-only) and the request's base URL. The view writes it from their
/// bytes (`TodoListViewModel+JSON.swift`); read as a collection it gives each to-do's
/// `TodoViewModel` (made on the spot, for code that wants strings).
public struct TodoListViewModel: Sendable, Equatable {
    public let items: PackedTodos
    /// Scheme, host and port the urls start with.
    public let baseURL: String
}

extension TodoListViewModel: RandomAccessCollection {
    public var startIndex: Int { 0 }
    public var endIndex: Int { items.count }

    public subscript(position: Int) -> TodoViewModel {
        TodoViewModel(items[position], baseURL: baseURL)
    }
}
