import ChangeFeed

/// Which to-dos a list asks for, in which order, and which page of them.
public struct TodoQuery: Sendable, Equatable {
    /// Only to-dos with this `completed` value.
    public var completed: Bool?
    /// Only to-dos whose title contains this, ignoring case.
    public var titleContains: String? {
        didSet { titleSearch = titleContains.map(TitleSearch.init) }
    }
    /// `titleContains` prepared once per query, not once per to-do.
    private var titleSearch: TitleSearch?
    public var sort: TodoSort
    public var limit: Int
    public var offset: Int

    public static let defaultLimit = 500
    public static let maxLimit = 1000

    public init(
        completed: Bool? = nil, titleContains: String? = nil, sort: TodoSort = TodoSort(),
        limit: Int = TodoQuery.defaultLimit, offset: Int = 0
    ) {
        self.completed = completed
        self.titleContains = titleContains
        self.titleSearch = titleContains.map(TitleSearch.init)
        self.sort = sort
        self.limit = limit
        self.offset = offset
    }

    /// Whether `todo` passes the filters.
    public func includes(_ todo: Todo) -> Bool {
        if let completed, todo.completed != completed { return false }
        if let titleSearch, !todo.titleKey.contains(titleSearch) { return false }
        return true
    }
}

/// A list order: a field, ascending or descending. To-dos without the field (no order, no due
/// date) come last either way; ties go by `createdAt`, then `id`, ascending.
public struct TodoSort: Sendable, Equatable {
    /// A field to sort by.
    public enum Field: String, Sendable, CaseIterable {
        case order, createdAt, dueDate, title
    }

    public var field: Field
    public var descending: Bool

    public init(_ field: Field = .order, descending: Bool = false) {
        self.field = field
        self.descending = descending
    }

    /// Parses `order`, `-order`, `createdAt`, … `-title`.
    public init?(parameter: String) {
        let descending = parameter.hasPrefix("-")
        guard let field = Field(rawValue: String(parameter.dropFirst(descending ? 1 : 0))) else { return nil }
        self.init(field, descending: descending)
    }

    /// True when `a` comes before `b`.
    public func areInIncreasingOrder(_ a: Todo, _ b: Todo) -> Bool {
        switch field {
        case .order:
            if let result = Self.compareOptional(a.order, b.order, descending: descending) { return result }
        case .dueDate:
            if let result = Self.compareOptional(a.dueDate, b.dueDate, descending: descending) { return result }
        case .createdAt:
            if a.createdAt != b.createdAt { return descending ? a.createdAt > b.createdAt : a.createdAt < b.createdAt }
        case .title:
            // As `a.title.lowercased()` against `b`'s, then the titles themselves, compared as
            // strings: the keys were prepared when the to-dos were stored.
            let order = TitleKey.compare(a.titleKey, b.titleKey)
            if order != 0 { return descending ? order > 0 : order < 0 }
        }
        return (a.createdAt, a.id) < (b.createdAt, b.id)
    }

    /// nil when equal; missing values last in either direction.
    private static func compareOptional<T: Comparable>(_ x: T?, _ y: T?, descending: Bool) -> Bool? {
        switch (x, y) {
        case (let x?, let y?) where x != y: descending ? x > y : x < y
        case (.some, nil): true
        case (nil, .some): false
        default: nil
        }
    }
}

/// One page of a list and how many to-dos passed the filters on all pages. (No store revision:
/// the list `ETag` is derived by the presenter from what the answer shows: the page's ids and
/// revisions, the total, offset and limit, through a stable 64-bit hash (FNV-1a) that is the same
/// on every instance and every run.) The page's to-dos are compact read-only values
/// (`PackedTodos`), not `Todo`s: no string is made per to-do on the way to the JSON.
public struct TodoPage: Sendable, Equatable {
    public var items: PackedTodos
    /// How many to-dos passed the filters, on all pages.
    public var total: Int
    /// The change order's cursor as of this page: every change up to it, and none after, is
    /// reflected in it (nil from a store that cannot say).
    public var lastChange: ChangeCursor?

    public init(items: PackedTodos, total: Int, lastChange: ChangeCursor? = nil) {
        self.items = items
        self.total = total
        self.lastChange = lastChange
    }

    /// A page of the given to-dos.
    public init(items: [Todo], total: Int) {
        self.init(items: PackedTodos(items), total: total)
    }
}
