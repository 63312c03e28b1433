/// A cursor as clients carry it (`id:` of an event, `X-Last-Event-ID`, `Last-Event-ID`): opaque to
/// them, `TAG.MAJOR.MINOR` with `~XMIN.XMAX.XIP_XIP…` after a PostgreSQL listing. The tag names
/// the change order (a store's life in memory, a data directory's, a database's), so that a
/// position from another one is unknown rather than misread.
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

    /// The cursor `token` names in the change order tagged `tag`; nil when it is not one.
    public init?(token: String, tag: String) {
        guard token.utf8.count <= Self.maxTokenBytes else { return nil }
        let halves = token.split(separator: "~", maxSplits: 1, omittingEmptySubsequences: false)
        let position = halves[0].split(separator: ".", omittingEmptySubsequences: false)
        guard position.count == 3, position[0] == tag, let major = UInt64(position[1]), let minor = UInt64(position[2])
        else { return nil }
        var seen: TransactionSnapshot?
        if halves.count == 2 {
            let parts = halves[1].split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 3 else { return nil }
            let list = String(parts[2].map { $0 == "_" ? "," : $0 })
            guard let snapshot = TransactionSnapshot(postgresText: "\(parts[0]):\(parts[1]):\(list)") else { return nil }
            seen = snapshot
        }
        self.init(after: ChangePosition(major: major, minor: minor), seen: seen)
    }
}
