import ChangeFeed
import PostgresLoop

/// The change feed's table (`TodoEventsSchema`) as the PostgreSQL reader reads it
/// (`ChangeFeed.PostgresChangeReader`): `TodoSQL`'s statements, the rows as the store's changes,
/// and `ChangeFilter`.
struct TodoChangeTable: ChangeTable {
    typealias Kind = StoreChangeKind
    typealias Filter = ChangeFilter

    static var windowStart: PostgresStatement { TodoSQL.eventsStart }
    static var changesAfter: PostgresStatement { TodoSQL.eventsAfter }
    static var announce: PostgresStatement { TodoSQL.eventsAnnounce }
    static var prune: PostgresStatement { TodoSQL.eventsPrune }
    static let channel = "todo_events"

    /// `TodoSQL.eventsAfter`'s rows say so in their last column (all alike; none: nothing to go on).
    static func pruned(_ rows: PostgresRows) -> Bool {
        rows.count > 0 && rows[0, TodoSQL.eventPrunedColumn] == "t"
    }

    /// The changes of `TodoSQL.eventColumns` rows, each with its owner's name ('' for the shared
    /// list); a row this server cannot read ends them (read again next time, never skipped).
    static func changes(_ rows: PostgresRows) -> [(owner: String, change: StoreChange)] {
        var changes: [(owner: String, change: StoreChange)] = []
        changes.reserveCapacity(rows.count)
        for row in 0..<rows.count {
            guard let xid = rows[row, 0].flatMap({ UInt64($0) }), let seq = rows[row, 1].flatMap({ UInt64($0) }),
                let kind = rows[row, 2], let owner = rows[row, TodoSQL.eventOwnerColumn]
            else { break }
            let kindOfChange: StoreChangeKind
            switch kind {
            case TodoEventsSchema.created, TodoEventsSchema.updated:
                guard let todo = TodoRowDecoder.todo(rows, row: row, first: 3) else { return changes }
                kindOfChange = kind == TodoEventsSchema.created ? .created(todo) : .updated(todo)
            case TodoEventsSchema.deleted:
                guard let id = rows[row, 3] else { return changes }
                kindOfChange = .deleted(id: id)
            case TodoEventsSchema.cleared:
                kindOfChange = .cleared
            default:
                return changes
            }
            changes.append((owner, StoreChange(position: ChangePosition(major: xid, minor: seq), kind: kindOfChange)))
        }
        return changes
    }
}

/// The store's reader of the change table.
typealias PostgresChangeFeed = PostgresChangeReader<TodoChangeTable>

extension PostgresChangeReader where Table == TodoChangeTable {
    /// `owner`'s change log (made now if there is none yet; `Owner.shared`: the shared list's).
    func log(of owner: Owner) -> ChangeLog {
        owner.isShared ? log : log(ofOwnerNamed: owner.name)
    }
}
