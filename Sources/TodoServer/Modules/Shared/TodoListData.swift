import TodoData

/// One page of the list as interactors hand it out: the page's to-dos as read-only compact values
/// (`PackedTodos`, which reads back as `Todo`), so that no string is made per to-do.
public struct TodoListData: Sendable, Equatable {
    public var items: PackedTodos
    /// How many to-dos passed the filters, on all pages.
    public var total: Int
    public var offset: Int
    public var limit: Int
    /// The live feed's position of the last change the page reflects: a client that subscribes
    /// after it misses nothing and sees nothing twice.
    public var lastChange: String?
}

extension TodoListData {
    /// A page of the given to-dos.
    init(items: [Todo], total: Int, offset: Int, limit: Int) {
        self.init(items: PackedTodos(items), total: total, offset: offset, limit: limit)
    }
}
