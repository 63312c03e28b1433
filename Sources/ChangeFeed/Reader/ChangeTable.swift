import PostgresLoop

/// A change table as the PostgreSQL reader (`PostgresChangeReader`) reads it: the statements, the
/// channel instances tell each other on, how a row becomes a change and whose it is, and the
/// filter its changes pass (the store's: `TodoChangeTable`).
public protocol ChangeTable: Sendable {
    associatedtype Kind: RecordedChange
    associatedtype Filter: ChangeFiltering<Kind>

    /// Where the window of retained changes begins: one row, the position's major and minor.
    /// Parameter: how many changes are retained.
    static var windowStart: PostgresStatement { get }
    /// The changes after a position. Parameters: its major, its minor, how many at most.
    static var changesAfter: PostgresStatement { get }
    /// Tells the other instances that changes can be read (a `NOTIFY` on `channel`).
    static var announce: PostgresStatement { get }
    /// Drops what is not retained any more. Parameter: how many changes are retained.
    static var prune: PostgresStatement { get }
    /// The channel instances listen on.
    static var channel: String { get }
    /// Whether changes after the position `changesAfter` read from were dropped (pruned) before
    /// they were read, so that its rows do not follow on from that position: the reader then starts
    /// its window again, and readers of older positions get a resync instead of a gap.
    static func pruned(_ rows: PostgresRows) -> Bool
    /// The changes of rows `changesAfter` read, each with its owner's name ('' for the shared
    /// list), in order; a row this server cannot read ends them.
    static func changes(_ rows: PostgresRows) -> [(owner: String, change: LoggedChange<Kind>)]
}

/// Drops changes a change table's order puts where a reader must not see them (the store's:
/// `ChangeFilter`, a change of a to-do after a later one of it). Made afresh with each window.
public protocol ChangeFiltering<Kind> {
    associatedtype Kind: RecordedChange
    init()
    /// Whether `change`, the next in order, is kept.
    mutating func keeps(_ change: LoggedChange<Kind>) -> Bool
}
