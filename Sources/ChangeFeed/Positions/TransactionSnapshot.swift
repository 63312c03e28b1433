import HTTPValues

/// A PostgreSQL snapshot (`pg_current_snapshot()`): which transactions' changes a reading saw.
/// A transaction is seen when it is below `xmin`, or below `xmax` and not in progress.
public struct TransactionSnapshot: Sendable, Hashable {
    /// Most transactions in progress a snapshot read from text may list (a client's cursor
    /// carries one: each change it is checked against costs a search of the list).
    public static let maxInProgress = 4096

    public var xmin: UInt64
    public var xmax: UInt64
    /// Ascending (`sees` searches it).
    public private(set) var inProgress: [UInt64]

    public init(xmin: UInt64, xmax: UInt64, inProgress: [UInt64]) {
        self.xmin = xmin
        self.xmax = xmax
        self.inProgress = inProgress.sorted()
    }

    /// Reads PostgreSQL's text form, `xmin:xmax:xip,xip,…`, exactly as PostgreSQL writes it; nil
    /// otherwise. Read from the database (a listing's snapshot) and, through a cursor's token,
    /// from clients: see `init?(xmin:xmax:inProgress:separator:maxInProgress:)`.
    public init?(postgresText text: String, maxInProgress: Int = TransactionSnapshot.maxInProgress) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        self.init(xmin: parts[0], xmax: parts[1], inProgress: parts[2], separator: ",", maxInProgress: maxInProgress)
    }

    /// A snapshot from its three parts' text, in the one form PostgreSQL writes (`pg_snapshot_out`):
    /// canonical decimal numbers (no sign, no leading zero, none past `UInt64.max`),
    /// `xmin ≤ xmax`, the transactions in progress strictly ascending, each in `[xmin, xmax)`,
    /// at most `maxInProgress` of them, separated by `separator` with no empty one (an empty
    /// list is an empty part). Any other spelling is not one PostgreSQL (or this server, which
    /// writes what it read) hands out, and is nil rather than read its way.
    init?(xmin xminText: Substring, xmax xmaxText: Substring, inProgress list: Substring, separator: Character, maxInProgress: Int) {
        guard let xmin = WireNumber.parse(xminText, canonical: true), let xmax = WireNumber.parse(xmaxText, canonical: true),
            xmin <= xmax
        else { return nil }
        var inProgress: [UInt64] = []
        if !list.isEmpty {
            // Counted before anything is read: a list of a million items costs no more than one of 4,097.
            let mark = separator.utf8.first
            guard list.utf8.count(where: { $0 == mark }) < maxInProgress else { return nil }
            var lowest = xmin
            for item in list.split(separator: separator, omittingEmptySubsequences: false) {
                guard let xid = WireNumber.parse(item, canonical: true), xid >= lowest, xid < xmax else { return nil }
                inProgress.append(xid)
                lowest = xid + 1  // strictly ascending; xid < xmax, so no wrap
            }
        }
        self.xmin = xmin
        self.xmax = xmax
        self.inProgress = inProgress
    }

    /// Whether the changes of transaction `xid` were visible in this snapshot (a binary search
    /// of the transactions in progress: a cursor's 4,096 cost 12 steps a change, not 4,096).
    public func sees(_ xid: UInt64) -> Bool {
        if xid < xmin { return true }
        guard xid < xmax else { return false }
        var low = 0, high = inProgress.count
        while low < high {
            let middle = (low + high) / 2
            if inProgress[middle] < xid { low = middle + 1 } else { high = middle }
        }
        return low == inProgress.count || inProgress[low] != xid
    }
}
