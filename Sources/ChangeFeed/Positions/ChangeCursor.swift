/// Where a reader of the change order stands: it has seen every change up to `after`, and, after
/// a PostgreSQL listing, also those of the transactions its snapshot `seen` saw.
public struct ChangeCursor: Sendable, Hashable {
    public var after: ChangePosition
    public var seen: TransactionSnapshot?

    public init(after: ChangePosition, seen: TransactionSnapshot? = nil) {
        self.after = after
        self.seen = seen
        dropSnapshotIfPassed()
    }

    /// Whether the change at `position` is one the reader has seen already.
    public func hasSeen(_ position: ChangePosition) -> Bool {
        position <= after || (seen?.sees(position.major) ?? false)
    }

    /// The cursor once the change at `position` has been seen too (changes are seen in order).
    public mutating func advance(to position: ChangePosition) {
        if position > after { after = position }
        dropSnapshotIfPassed()
    }

    /// Once `after` has passed every transaction the snapshot saw, it says nothing more.
    private mutating func dropSnapshotIfPassed() {
        if let seen, after.major >= seen.xmax { self.seen = nil }
    }
}
