import LockTracing
import Synchronization

/// A store's change order as readers see it: the last `capacity` changes, the cursor of everything
/// so far (`head`), and wake-ups for whoever waits for the next change. Every store keeps one and
/// appends each change to it in the order the store applies them (memory, journal), or in the order
/// the database delivers them (PostgreSQL). Thread-safe; readers pull, the log never calls into
/// them but to tell its listeners (`ChangeListener`) that it took changes: after an append, or,
/// for a store that appends under its own lock, when the store makes the append's
/// `ChangeAnnouncement` once it let go of that lock.
public final class ChangeLog<Kind: RecordedChange>: Sendable {
    /// Names this change order in cursor tokens.
    public let tag: String
    /// Changes kept for replay.
    public let capacity: Int
    /// How far past `head`'s major a cursor may be and still be taken (PostgreSQL: another instance
    /// may have delivered a change this one has not fetched yet); 0: not at all.
    let aheadAllowance: UInt64
    /// Its cursors may carry a PostgreSQL snapshot (a listing's, `PostgresChangeFeed`); a token
    /// with one is unknown to every other log, which never hands one out.
    public let handsOutSnapshots: Bool
    /// Where `start` was: a sibling log begins there too.
    private let origin: ChangePosition
    /// The minors `appendNext` hands out, shared with this log's siblings (one position order
    /// across the owners of a store).
    private let sequence: ChangeSequence
    /// The retention budget this log shares with its siblings, nil while it is alone (it keeps its
    /// own last `capacity` changes).
    private let retention: ChangeRetention<Kind>?
    private let state: Mutex<State>

    private struct State {
        /// Retained changes in order, in compact form.
        var changes: PackedChanges<Kind>
        /// The newest retained change as it was appended (also in `changes`), nil when none is
        /// retained: a live reader, which reads just it, gets it without a decode (one value per
        /// log, the size of one `LoggedChange`).
        var newest: LoggedChange<Kind>?
        /// Every change at or before it has left the window (or never was).
        var floor: ChangePosition
        var head: ChangeCursor
        /// Changes appended so far (a reset does not count).
        var appended = 0
        /// Retained changes replays looked at so far (each at most once per cursor that reads on).
        var examined = 0
        /// Told after appends (an array: an append hands it out with a retain, no copy).
        var listeners: [ChangeListening] = []
    }

    /// What a reader at some cursor gets.
    public enum Replay: Sendable, Equatable {
        /// The changes after the cursor (at most the limit asked for), in order; empty when there
        /// are none yet. `end`: the cursor once every change the replay looked at has been passed,
        /// those the cursor had seen already (its snapshot's) included: a reader that goes on from
        /// it never looks at them again, so that what a reader costs the log is bounded by the
        /// changes that come, not by what its cursor claims to have seen.
        case changes([LoggedChange<Kind>], end: ChangeCursor)
        /// The cursor is older than the window, or not one of this order: start again from `head`.
        case resync(head: ChangeCursor)
    }

    /// An empty log whose changes come after `start` (kept in order: every append comes after it).
    public convenience init(tag: String, capacity: Int, start: ChangePosition, aheadAllowance: UInt64 = 0, handsOutSnapshots: Bool = false)
    {
        self.init(
            tag: tag, capacity: capacity, start: start, aheadAllowance: aheadAllowance, handsOutSnapshots: handsOutSnapshots,
            sequence: ChangeSequence(after: start.minor), retention: nil)
    }

    private init(
        tag: String, capacity: Int, start: ChangePosition, aheadAllowance: UInt64, handsOutSnapshots: Bool, sequence: ChangeSequence,
        retention: ChangeRetention<Kind>?
    ) {
        self.tag = tag
        self.capacity = max(1, capacity)
        self.aheadAllowance = aheadAllowance
        self.handsOutSnapshots = handsOutSnapshots
        self.sequence = sequence
        self.retention = retention
        origin = start
        state = Mutex(State(changes: PackedChanges(slotLimit: self.capacity), floor: start, head: ChangeCursor(after: start)))
    }

    /// A log for another owner of the same store: the same tag and cursor form, positions from
    /// the same order (`appendNext` of either never hands out a position the other did), and
    /// the last `capacity` changes of all of them retained together, whichever log they are in.
    /// Call it on the store's first log before that log has changes of its own.
    public func sibling() -> ChangeLog {
        let shared =
            retention
            ?? sharedRetention.withTracedLock { shared in
                if let shared { return shared }
                let made = ChangeRetention<Kind>(capacity: capacity)
                made.enroll(self, retained: retainedCount)
                shared = made
                hasSiblings.store(true, ordering: .releasing)
                return made
            }
        return ChangeLog(
            tag: tag, capacity: capacity, start: origin, aheadAllowance: aheadAllowance, handsOutSnapshots: handsOutSnapshots,
            sequence: sequence, retention: shared)
    }

    /// The budget the first log made when it got its first sibling (a change appended while that
    /// happens may count against its own capacity instead: the budget is off by that much).
    private let sharedRetention = Mutex<ChangeRetention<Kind>?>(nil)
    /// Whether `sharedRetention` is set: a log without siblings appends without taking its lock.
    private let hasSiblings = Atomic<Bool>(false)

    /// The budget this log's changes count against, nil: its own capacity.
    private var budget: ChangeRetention<Kind>? {
        if let retention { return retention }
        guard hasSiblings.load(ordering: .acquiring) else { return nil }
        return sharedRetention.withTracedLock { $0 }
    }

    /// The cursor of a reader that has seen every change so far.
    public var head: ChangeCursor { state.withTracedLock { $0.head } }

    /// The token of `head`.
    public var headToken: String { head.token(tag: tag) }

    /// How many changes were appended so far: a reader that counts them over a span of time
    /// knows how fast they come.
    public var appendedCount: Int { state.withTracedLock { $0.appended } }

    /// Changes currently retained.
    public var retainedCount: Int { state.withTracedLock { $0.changes.count } }

    /// The memory its retained changes hold, room not yet used included (for tests).
    package var retainedBytes: Int { state.withTracedLock { $0.changes.heldBytes } }

    /// How many retained changes replays have looked at so far (what readers cost the log).
    package var examinedCount: Int { state.withTracedLock { $0.examined } }

    /// Appends `kind` at the next position on `head`'s major and tells the listeners; answers
    /// that position. For a caller that holds no lock of its own (else `appendNextUnannounced`).
    @discardableResult
    public func appendNext(_ kind: Kind) -> ChangePosition {
        let (position, announcement) = appendNextUnannounced(kind)
        announcement.announce()
        return position
    }

    /// Appends `kind` at the next position on `head`'s major; answers that position and the
    /// announcement the caller makes once it let go of its own lock (a store appends under its
    /// lock, so that a page and the cursor it reports agree).
    public func appendNextUnannounced(_ kind: Kind) -> (position: ChangePosition, announcement: ChangeAnnouncement) {
        let budget = budget
        let (position, listeners) = state.withTracedLock { state -> (ChangePosition, [ChangeListening]) in
            let position = ChangePosition(major: state.head.after.major, minor: sequence.next(after: state.head.after.minor))
            Self.add(position: position, kind: kind, to: &state, capacity: budget == nil ? capacity : .max)
            return (position, state.listeners)
        }
        sequence.reached(major: position.major)
        budget?.retained(1, by: self)
        return (position, ChangeAnnouncement(listeners: listeners))
    }

    /// Appends changes whose positions come after `head`, in order (others are dropped: a fetch that
    /// overlapped the last one), and tells the listeners when it took any.
    public func append(_ changes: [LoggedChange<Kind>]) {
        appendUnannounced(changes).announce()
    }

    /// `append` without telling the listeners: the answer tells them, once the caller let go of
    /// its own lock (nobody when no change was taken).
    public func appendUnannounced(_ changes: [LoggedChange<Kind>]) -> ChangeAnnouncement {
        guard !changes.isEmpty else { return .none }
        let budget = budget
        let (added, listeners) = state.withTracedLock { state -> (Int, [ChangeListening]) in
            var added = 0
            for index in changes.indices where changes[index].position > state.head.after {
                Self.add(
                    position: changes[index].position, kind: changes[index].kind, to: &state, capacity: budget == nil ? capacity : .max)
                added += 1
            }
            return (added, added > 0 ? state.listeners : [])
        }
        if let last = changes.last { sequence.reached(major: last.position.major) }
        if added > 0 { budget?.retained(added, by: self) }
        return ChangeAnnouncement(listeners: listeners)
    }

    /// Lets its oldest retained change leave the window (the shared budget is full). The room
    /// of what left is given back once the log holds less than a quarter of it (`PackedChanges.trim`):
    /// an owner's log that the budget thinned holds room for at most twice what it retains, and
    /// one it emptied holds nothing (10,000 owners with 100 to-dos each kept every owner's left
    /// changes and their buffers: ~200 B per to-do).
    fileprivate func dropOldest() {
        state.withTracedLock { state in
            guard state.changes.count > 0 else { return }
            state.floor = state.changes.position(at: 0)
            state.changes.removeFirst()
            state.changes.trim()
            if state.changes.count == 0 { state.newest = nil }
        }
    }

    /// The changes the log has room for, retained or not (for tests).
    package var heldCount: Int { state.withTracedLock { $0.changes.slotCapacity } }

    /// Moves `head` to `position` without a change (PostgreSQL: the window starts where the table's
    /// retained changes end); the window then starts there too. Answers the announcement to make
    /// once the caller let go of its own locks: a listener's readers at older positions are then
    /// told to resync, with no change needed to wake them. A log with siblings is reset with all of
    /// them, then `resetRetention` once.
    @discardableResult
    public func reset(to position: ChangePosition) -> ChangeAnnouncement {
        let listeners = state.withTracedLock { state in
            state.changes.removeAll()
            state.newest = nil
            state.floor = position
            state.head = ChangeCursor(after: position)
            return state.listeners
        }
        sequence.reached(major: position.major)
        return ChangeAnnouncement(listeners: listeners)
    }

    /// After this log and every sibling were `reset`: the budget they share counts none of the
    /// changes it counted (they are gone), so that the next ones do not push out changes just read.
    public func resetRetention() {
        budget?.reset()
    }

    private static func add(position: ChangePosition, kind: Kind, to state: inout State, capacity: Int) {
        // The oldest leaves first, so that a full window never needs room for one more.
        if state.changes.count >= capacity {
            state.floor = state.changes.position(at: 0)
            state.changes.removeFirst()
        }
        state.changes.append(position: position, kind: kind)
        state.changes.trim()
        state.newest = LoggedChange(position: position, kind: kind)
        state.appended += 1
        state.head.advance(to: position)
    }

    /// At most `limit` changes after `cursor` that it has not seen, or a resync when `cursor` is
    /// older than the window or beyond what this log can know.
    public func replay(after cursor: ChangeCursor, limit: Int = .max) -> Replay {
        // The records are copied out under the lock and made changes after it: an append (a
        // store's write, under its own lock) never waits for strings to be made.
        switch excerpt(after: cursor, limit: limit) {
        case .replay(let replay): return replay
        case .records(let excerpt, let end): return .changes(excerpt.changes(), end: end)
        }
    }

    private enum Found {
        /// The answer, with no record to decode: a resync, nothing new, or just the newest change
        /// (a live reader's usual case).
        case replay(Replay)
        /// Records copied out, to be decoded outside the lock.
        case records(PackedChanges<Kind>.Excerpt, end: ChangeCursor)
    }

    private func excerpt(after cursor: ChangeCursor, limit: Int) -> Found {
        state.withTracedLock { state in
            if cursor.after < state.floor { return .replay(.resync(head: state.head)) }
            // How far ahead a cursor may be is measured from the newest major of this log and its
            // siblings: an owner whose last change is old still takes a listing's recent cursor.
            let newest = max(state.head.after.major, sequence.newestMajor)
            // A snapshot cannot have seen further than a position can be ahead: one that claims to
            // (xmax far past the head) would hide every later change from its reader for good.
            if let seen = cursor.seen {
                let (allowed, overflow) = newest.addingReportingOverflow(aheadAllowance)
                if !overflow, seen.xmax > allowed, seen.xmax - allowed > 1 { return .replay(.resync(head: state.head)) }
            }
            if cursor.after > state.head.after {
                let allowed = newest.addingReportingOverflow(aheadAllowance)
                if aheadAllowance == 0 || (!allowed.overflow && cursor.after.major > allowed.partialValue) {
                    return .replay(.resync(head: state.head))
                }
                return .replay(.changes([], end: cursor))
            }
            let low = state.changes.firstIndex(after: cursor.after)
            if low == state.changes.count { return .replay(.changes([], end: cursor)) }
            // Only the newest change is after the cursor: it is taken whole, no record copied.
            if low == state.changes.count - 1, limit > 0, let last = state.newest, last.position == state.changes.position(at: low) {
                state.examined += 1
                var end = cursor
                end.advance(to: last.position)
                return .replay(.changes(cursor.hasSeen(last.position) ? [] : [last], end: end))
            }
            var found = PackedChanges<Kind>.Excerpt()
            var end = cursor
            var index = low
            while index < state.changes.count, found.count < limit {
                let position = state.changes.position(at: index)
                if !cursor.hasSeen(position) {
                    if index == state.changes.count - 1, let newest = state.newest, newest.position == position {
                        found.newest = newest
                    } else {
                        state.changes.copy(index, to: &found)
                    }
                }
                end.advance(to: position)
                index += 1
            }
            state.examined += index - low
            return .records(found, end: end)
        }
    }

    /// The cursor `token` names, nil when it is not a token of this log.
    public func cursor(fromToken token: String) -> ChangeCursor? {
        ChangeCursor(token: token, tag: tag, snapshots: handsOutSnapshots)
    }

    /// Tells `listener` of every later append (held weakly: until it goes, or `stopListening`).
    public func listen(_ listener: any ChangeListener) {
        state.withTracedLock { state in
            state.listeners.removeAll { $0.listener == nil || $0.listener === listener }
            state.listeners.append(ChangeListening(listener: listener))
        }
    }

    /// Listeners registered now and still alive.
    package var listenerCount: Int { state.withTracedLock { $0.listeners.count { $0.listener != nil } } }

    public func stopListening(_ listener: any ChangeListener) {
        state.withTracedLock { state in state.listeners.removeAll { $0.listener == nil || $0.listener === listener } }
    }
}

/// The minors a store's logs hand out (`appendNext`): each one past every minor handed out before
/// and past the asking log's head.
final class ChangeSequence: Sendable {
    private let last: Atomic<UInt64>
    /// The newest major any of the logs reached (PostgreSQL: the newest transaction read).
    private let newest = Atomic<UInt64>(0)

    var newestMajor: UInt64 { newest.load(ordering: .relaxed) }

    func reached(major: UInt64) {
        var current = newest.load(ordering: .relaxed)
        while major > current {
            let (exchanged, original) = newest.compareExchange(
                expected: current, desired: major, successOrdering: .relaxed, failureOrdering: .relaxed)
            if exchanged { return }
            current = original
        }
    }

    init(after minor: UInt64) {
        last = Atomic(minor)
    }

    func next(after minor: UInt64) -> UInt64 {
        var current = last.load(ordering: .relaxed)
        while true {
            let next = max(current, minor) + 1
            let (exchanged, original) = last.compareExchange(
                expected: current, desired: next, successOrdering: .acquiringAndReleasing, failureOrdering: .relaxed)
            if exchanged { return next }
            current = original
        }
    }
}

/// The retention budget of sibling logs (one per owner of a store): they keep the last
/// `capacity` changes of all of them together, in the order they were appended, so that a
/// thousand owners cost what one does. Each append is noted here after the log took it; once past
/// the budget, the log that holds the oldest retained change lets it go.
final class ChangeRetention<Kind: RecordedChange>: Sendable {
    let capacity: Int
    private let order = Mutex(Order())

    private struct Order {
        /// Which log took each retained change, oldest first from `start`.
        var logs: [WeakLog] = []
        var start = 0
    }

    private struct WeakLog: @unchecked Sendable {
        weak var log: ChangeLog<Kind>?
    }

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Counts the changes `log` already holds (the first log, when it gets a sibling).
    func enroll(_ log: ChangeLog<Kind>, retained: Int) {
        order.withTracedLock { order in
            for _ in 0..<retained { order.logs.append(WeakLog(log: log)) }
        }
    }

    /// `log` took `count` changes: the oldest changes past the budget leave their logs.
    func retained(_ count: Int, by log: ChangeLog<Kind>) {
        let leaving = order.withTracedLock { order -> [WeakLog] in
            for _ in 0..<count { order.logs.append(WeakLog(log: log)) }
            let excess = order.logs.count - order.start - capacity
            guard excess > 0 else { return [] }
            let leaving = Array(order.logs[order.start..<(order.start + excess)])
            order.start += excess
            if order.start >= capacity {
                order.logs.removeFirst(order.start)
                order.start = 0
            }
            return leaving
        }
        // Outside the budget's lock: a log's lock is never taken while it is held.
        for entry in leaving { entry.log?.dropOldest() }
    }

    /// Its logs were all reset: it counts nothing.
    func reset() {
        order.withTracedLock { order in
            order.logs.removeAll()
            order.start = 0
        }
    }

    /// Changes the budget counts now.
    var retainedCount: Int { order.withTracedLock { $0.logs.count - $0.start } }
}
