/// List orders over records: what `TodoSort.areInIncreasingOrder` decides for the to-dos, decided
/// on the slots without making them.
extension TodoSlots {
    /// True when the to-do in `a` comes before the one in `b` in `sort`.
    func areInIncreasingOrder(_ sort: TodoSort, _ a: Int32, _ b: Int32) -> Bool {
        let x = self[a]
        let y = self[b]
        let descending = sort.descending
        switch sort.field {
        case .order:
            if let result = Self.compareOptional(x.hasOrder, x.order, y.hasOrder, y.order, descending: descending) { return result }
        case .dueDate:
            if let result = Self.compareOptional(x.hasDueDate, x.dueDays, y.hasDueDate, y.dueDays, descending: descending) {
                return result
            }
        case .createdAt:
            if x.createdAt != y.createdAt { return descending ? x.createdAt > y.createdAt : x.createdAt < y.createdAt }
        case .title:
            let order = compareTitles(a, b)
            if order != 0 { return descending ? order > 0 : order < 0 }
        }
        if x.createdAt != y.createdAt { return x.createdAt < y.createdAt }
        return compareIDs(a, b) < 0
    }

    /// nil when equal; missing values last in either direction.
    private static func compareOptional<T: Comparable>(_ hasX: Bool, _ x: T, _ hasY: Bool, _ y: T, descending: Bool) -> Bool? {
        switch (hasX, hasY) {
        case (true, true) where x != y: descending ? x > y : x < y
        case (true, false): true
        case (false, true): false
        default: nil
        }
    }
}
