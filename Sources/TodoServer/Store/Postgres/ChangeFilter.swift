/// Drops a change of a to-do that the change feed's order puts after a later change of the same
/// to-do (PostgreSQL's change feed, `PostgresChangeFeed`).
///
/// A change's position is its transaction's id, and an `UPDATE` (or `DELETE`) that waits for a
/// row's lock has taken its id before it waits: when a newer transaction changes the row first, the
/// waiting one commits the later change under the smaller id, and the feed, which reads in id order,
/// sees the newer revision first. A subscriber would end on the older one (a second reader measured
/// a fifth of consecutive events of one to-do going down in revision under 24 clients changing it at
/// once). So an update whose revision is not above the last one kept for its to-do, and any change
/// of a to-do after its deletion (ids are never reused), is dropped: what a subscriber gets ends on
/// the to-do as stored. Every instance reads the same changes in the same order and drops the same
/// ones. A listing's cursor is not affected: the change it saw is the one dropped or skipped anyway.
///
/// Memory: the last revision of each to-do changed since the filter last forgot (it forgets when
/// it holds `limit` to-dos, far more than one read's changes; an inverted pair is read together).
struct ChangeFilter {
    private var latest: [String: UInt64] = [:]
    let limit: Int

    init(limit: Int = 50_000) {
        self.limit = limit
    }

    /// A deleted to-do's mark (above every revision).
    private static let deleted = UInt64.max

    /// `changes` without those that arrive after a later change of their to-do, in order.
    mutating func keep(_ changes: [StoreChange]) -> [StoreChange] {
        if latest.count >= limit { latest = [:] }
        var kept: [StoreChange] = []
        kept.reserveCapacity(changes.count)
        for change in changes {
            switch change.kind {
            case .created(let todo), .updated(let todo):
                if let last = latest[todo.id], last >= todo.revision { continue }
                latest[todo.id] = todo.revision
            case .deleted(let id):
                if latest[id] == Self.deleted { continue }
                latest[id] = Self.deleted
            case .cleared:
                break
            }
            kept.append(change)
        }
        return kept
    }
}
