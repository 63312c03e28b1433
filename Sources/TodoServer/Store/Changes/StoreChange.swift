/// A change's place in a store's change order: `major`, then `minor`. In memory and in a journal
/// `major` is fixed (or the journal's generation) and `minor` counts changes; in PostgreSQL they
/// are the writing transaction's id and the change's number in the table.
public struct ChangePosition: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var major: UInt64
    public var minor: UInt64

    public init(major: UInt64, minor: UInt64) {
        self.major = major
        self.minor = minor
    }

    public static func < (lhs: ChangePosition, rhs: ChangePosition) -> Bool {
        (lhs.major, lhs.minor) < (rhs.major, rhs.minor)
    }

    public var description: String { "\(major).\(minor)" }
}

/// What changed.
public enum StoreChangeKind: Sendable, Equatable {
    /// A to-do was inserted (as stored).
    case created(Todo)
    /// A to-do's fields changed (as stored after the change).
    case updated(Todo)
    case deleted(id: String)
    /// Every to-do was removed.
    case cleared
}

/// One change to a store, at its position in the store's change order.
public struct StoreChange: Sendable, Equatable {
    public var position: ChangePosition
    public var kind: StoreChangeKind

    public init(position: ChangePosition, kind: StoreChangeKind) {
        self.position = position
        self.kind = kind
    }
}

/// A PostgreSQL snapshot (`pg_current_snapshot()`): which transactions' changes a reading saw.
/// A transaction is seen when it is below `xmin`, or below `xmax` and not in progress.
public struct TransactionSnapshot: Sendable, Hashable {
    public var xmin: UInt64
    public var xmax: UInt64
    public var inProgress: [UInt64]

    public init(xmin: UInt64, xmax: UInt64, inProgress: [UInt64]) {
        self.xmin = xmin
        self.xmax = xmax
        self.inProgress = inProgress.sorted()
    }

    /// Reads PostgreSQL's text form, `xmin:xmax:xip,xip,…`; nil unless well formed.
    public init?(postgresText text: String, maxInProgress: Int = 4096) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, let xmin = UInt64(parts[0]), let xmax = UInt64(parts[1]), xmin <= xmax else { return nil }
        let listed = parts[2].isEmpty ? [] : parts[2].split(separator: ",", omittingEmptySubsequences: false)
        guard listed.count <= maxInProgress else { return nil }
        var inProgress: [UInt64] = []
        for item in listed {
            guard let xid = UInt64(item), xid >= xmin, xid < xmax else { return nil }
            inProgress.append(xid)
        }
        self.init(xmin: xmin, xmax: xmax, inProgress: inProgress)
    }

    /// Whether the changes of transaction `xid` were visible in this snapshot.
    public func sees(_ xid: UInt64) -> Bool {
        xid < xmin || (xid < xmax && !inProgress.contains(xid))
    }
}

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
