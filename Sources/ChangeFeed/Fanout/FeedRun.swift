/// Changes after one cursor, as subscriptions at that cursor hear them: read from the log and
/// given their positions once per loop for all of them (subscribers that keep up share a cursor),
/// so that the presenter can shape and encode them once too.
public final class FeedRun<Kind: RecordedChange>: Sendable {
    /// The changes, in order, each with the position a client resumes after.
    public let items: [FeedItem<Kind>]
    /// The cursor once each item has been heard.
    let cursors: [ChangeCursor]
    /// The cursor once every item has been heard: past the changes the log looked at and skipped
    /// after the last item too (those the cursor's snapshot had seen), which a subscriber that
    /// takes every item (or is sent none) moves to, so that they are not looked at again.
    let end: ChangeCursor

    init(changes: [LoggedChange<Kind>], after cursor: ChangeCursor, end: ChangeCursor, tag: String) {
        self.end = end
        var cursor = cursor
        var items: [FeedItem<Kind>] = []
        var cursors: [ChangeCursor] = []
        items.reserveCapacity(changes.count)
        cursors.reserveCapacity(changes.count)
        for change in changes {
            cursor.advance(to: change.position)
            items.append(.change(position: cursor.token(tag: tag), change.kind))
            cursors.append(cursor)
        }
        self.items = items
        self.cursors = cursors
    }
}

/// The runs read on one loop since its fan-out's pass began, by the cursor they start after.
/// A run read earlier in a pass may lack changes appended since: it is still the start of what
/// follows its cursor, and every append is followed by another pass, which reads afresh.
struct FeedRunCache<Kind: RecordedChange> {
    /// Runs kept: subscribers that keep up share one cursor; a few more for those that lag.
    static var capacity: Int { 4 }
    private var runs: [(cursor: ChangeCursor, run: FeedRun<Kind>)] = []
    private var next = 0

    mutating func clear() {
        runs.removeAll(keepingCapacity: true)
        next = 0
    }

    /// The run kept for `cursor`.
    func run(after cursor: ChangeCursor) -> FeedRun<Kind>? {
        for entry in runs where entry.cursor == cursor { return entry.run }
        return nil
    }

    mutating func keep(_ run: FeedRun<Kind>, after cursor: ChangeCursor) {
        if runs.count < Self.capacity {
            runs.append((cursor, run))
        } else {
            runs[next] = (cursor, run)
            next = (next + 1) % Self.capacity
        }
    }
}
