/// The to-dos' ids in the list's default order (`order` ascending with unset last, then
/// `createdAt`, then `id`), so that a page of the default list costs O(limit) instead of a sort of
/// every to-do. New to-dos without an order land at the end: an append.
struct DefaultOrderIndex {
    /// One to-do's place: the fields the default order compares, and its id.
    struct Key: Comparable {
        let hasOrder: Bool
        let order: Int
        let createdAt: Int64
        let id: String

        init(_ todo: Todo) {
            hasOrder = todo.order != nil
            order = todo.order ?? 0
            createdAt = todo.createdAt.millisecondsSinceEpoch
            id = todo.id
        }

        static func < (a: Key, b: Key) -> Bool {
            if a.hasOrder != b.hasOrder { return a.hasOrder }
            if a.order != b.order { return a.order < b.order }
            if a.createdAt != b.createdAt { return a.createdAt < b.createdAt }
            return a.id < b.id
        }
    }

    private(set) var keys: [Key] = []

    init() {}

    /// The index of `todos`, built with one sort (inserting one by one would be quadratic).
    init(_ todos: some Sequence<Todo>) {
        keys = todos.map(Key.init)
        keys.sort()
    }

    mutating func insert(_ todo: Todo) {
        let key = Key(todo)
        if let last = keys.last, !(key < last) {
            keys.append(key)
        } else {
            keys.insert(key, at: firstIndex(notBefore: key))
        }
    }

    mutating func remove(_ todo: Todo) {
        let key = Key(todo)
        let index = firstIndex(notBefore: key)
        if index < keys.count, keys[index] == key { keys.remove(at: index) }
    }

    /// Moves a to-do whose ordering fields may have changed.
    mutating func replace(_ old: Todo, with new: Todo) {
        guard Key(old) != Key(new) else { return }
        remove(old)
        insert(new)
    }

    mutating func removeAll() {
        keys.removeAll()
    }

    /// The first position whose key is not less than `key` (binary search).
    private func firstIndex(notBefore key: Key) -> Int {
        var low = 0
        var high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if keys[middle] < key { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
