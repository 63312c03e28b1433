import ChangeFeed

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
/// the to-do as stored. Instances read the same changes in the same order and remember each to-do's
/// last change while it is among the newer half of what they remember (`limit`: far more changes
/// than come between two such transactions), so they drop the same ones; an instance that starts its window
/// between the two changes of such a pair keeps the older one (its subscribers then end on it until
/// the to-do changes again). A listing's cursor is not affected: a listing that saw the change kept
/// saw the one dropped too.
///
/// `cleared` needs no filtering: a clear locks the table's writes out (`TodoSQL+RemoveAll.swift`),
/// so every change before it has a smaller position and every change after it a larger one (a
/// clear by a build before migration 9, in a rolling upgrade or after a rollback, does not).
struct ChangeFilter: ChangeFiltering {
    private var latest: [String: (revision: UInt64, xid: UInt64)] = [:]
    /// To-dos remembered before the older half of them is forgotten.
    let limit: Int

    init(limit: Int) {
        self.limit = max(2, limit)
    }

    /// A filter remembering 50,000 to-dos.
    init() {
        self.init(limit: 50_000)
    }

    /// A deleted to-do's mark (above every revision).
    private static let deleted = UInt64.max

    /// `changes` without those that arrive after a later change of their to-do, in order.
    mutating func keep(_ changes: [StoreChange]) -> [StoreChange] {
        changes.filter { keeps($0) }
    }

    /// Whether `change`, the next in order, is kept (noted as its to-do's last change if so).
    mutating func keeps(_ change: StoreChange) -> Bool {
        let xid = change.position.major
        if latest.count >= limit { forgetTheOlderHalf() }
        switch change.kind {
        case .created(let todo), .updated(let todo):
            if let last = latest[todo.id], last.revision >= todo.revision { return false }
            latest[todo.id] = (todo.revision, xid)
        case .deleted(let id):
            if latest[id]?.revision == Self.deleted { return false }
            latest[id] = (Self.deleted, xid)
        case .cleared:
            break
        }
        return true
    }

    /// Forgets the to-dos whose last change is older than the median of what is remembered.
    private mutating func forgetTheOlderHalf() {
        let xids = latest.values.map(\.xid).sorted()
        let median = xids[xids.count / 2]
        latest = latest.filter { $0.value.xid >= median }
    }
}
