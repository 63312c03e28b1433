import HTTPValues

/// A cursor as clients carry it (`id:` of an event, `X-Last-Event-ID`, `Last-Event-ID`): opaque to
/// them, `TAG.MAJOR.MINOR` with `~XMIN.XMAX.XIP_XIP…` after a PostgreSQL listing. The tag names
/// the change order (a store's life in memory, a data directory's, a database's), so that a
/// position from another one is unknown rather than misread.
///
/// A token is taken only in the form its own log hands out, every part bounded: anything else is
/// unknown (a resync), never read some other way. A client's cursor decides how much work its
/// subscription asks of the log (issue 35: a memory store took a snapshot it never hands out, of
/// 4,096 transactions "in progress", and rescanned every retained change against it at each write).
extension ChangeCursor {
    /// Longest token read (a snapshot of 4,096 transactions in progress fits).
    public static let maxTokenBytes = 90_000

    public func token(tag: String) -> String {
        var text = "\(tag).\(after.major).\(after.minor)"
        if let seen {
            text += "~\(seen.xmin).\(seen.xmax)."
            text += seen.inProgress.map(String.init).joined(separator: "_")
        }
        return text
    }

    /// The cursor `token` names in the change order tagged `tag`; nil when it is not one that order
    /// hands out. `snapshots`: the order's cursors may carry a PostgreSQL snapshot (only the
    /// PostgreSQL log's do). Numbers are canonical decimal (`WireNumber`): one spelling per value.
    /// A snapshot is taken only as the server writes it: `xmin ≤ MAJOR < xmax` (a cursor whose
    /// major reached `xmax` has dropped its snapshot), its list as `TransactionSnapshot` reads one.
    public init?(token: String, tag: String, snapshots: Bool) {
        guard token.utf8.count <= Self.maxTokenBytes else { return nil }
        let halves = token.split(separator: "~", maxSplits: 1, omittingEmptySubsequences: false)
        let position = halves[0].split(separator: ".", omittingEmptySubsequences: false)
        guard position.count == 3, position[0] == tag, let major = WireNumber.parse(position[1], canonical: true),
            let minor = WireNumber.parse(position[2], canonical: true)
        else { return nil }
        var seen: TransactionSnapshot?
        if halves.count == 2 {
            guard snapshots else { return nil }
            let parts = halves[1].split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 3,
                let snapshot = TransactionSnapshot(
                    xmin: parts[0], xmax: parts[1], inProgress: parts[2], separator: "_",
                    maxInProgress: TransactionSnapshot.maxInProgress),
                snapshot.xmin <= major, major < snapshot.xmax
            else { return nil }
            seen = snapshot
        }
        self.init(after: ChangePosition(major: major, minor: minor), seen: seen)
    }
}
