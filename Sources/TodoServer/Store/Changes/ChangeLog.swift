import LockTracing
import Synchronization

/// A store's change order as readers see it: the last `capacity` changes, the cursor of everything
/// so far (`head`), and wake-ups for whoever waits for the next change. Every store keeps one and
/// appends each change to it in the order the store applies them (memory, journal), or in the order
/// the database delivers them (PostgreSQL). Thread-safe; readers pull, the log never calls into
/// them but for `observe`'s wake-up, which must be quick and must not call back into the store.
public final class ChangeLog: Sendable {
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
    private let state: Mutex<State>

    private struct State {
        /// Retained changes in order, from `start`.
        var changes: [StoreChange] = []
        var start = 0
        /// Every change at or before it has left the window (or never was).
        var floor: ChangePosition
        var head: ChangeCursor
        /// Changes appended so far (a reset does not count).
        var appended = 0
        /// Retained changes replays looked at so far (each at most once per cursor that reads on).
        var examined = 0
        var observers: [UInt64: @Sendable () -> Void] = [:]
        var nextObserver: UInt64 = 0
    }

    /// What a reader at some cursor gets.
    public enum Replay: Sendable, Equatable {
        /// The changes after the cursor (at most the limit asked for), in order; empty when there
        /// are none yet. `end`: the cursor once every change the replay looked at has been passed,
        /// those the cursor had seen already (its snapshot's) included: a reader that goes on from
        /// it never looks at them again, so that what a reader costs the log is bounded by the
        /// changes that come, not by what its cursor claims to have seen.
        case changes([StoreChange], end: ChangeCursor)
        /// The cursor is older than the window, or not one of this order: start again from `head`.
        case resync(head: ChangeCursor)
    }

    /// An empty log whose changes come after `start` (kept in order: every append comes after it).
    public init(tag: String, capacity: Int, start: ChangePosition, aheadAllowance: UInt64 = 0, handsOutSnapshots: Bool = false) {
        self.tag = tag
        self.capacity = max(1, capacity)
        self.aheadAllowance = aheadAllowance
        self.handsOutSnapshots = handsOutSnapshots
        state = Mutex(State(floor: start, head: ChangeCursor(after: start)))
    }

    /// The cursor of a reader that has seen every change so far.
    public var head: ChangeCursor { state.withTracedLock { $0.head } }

    /// The token of `head`.
    public var headToken: String { head.token(tag: tag) }

    /// How many changes were appended so far: a reader that counts them over a span of time
    /// knows how fast they come.
    public var appendedCount: Int { state.withTracedLock { $0.appended } }

    /// Changes currently retained.
    public var retainedCount: Int { state.withTracedLock { $0.changes.count - $0.start } }

    /// How many retained changes replays have looked at so far (what readers cost the log).
    var examinedCount: Int { state.withTracedLock { $0.examined } }

    /// Appends `kind` at the next position on `head`'s major; answers that position.
    @discardableResult
    public func appendNext(_ kind: StoreChangeKind) -> ChangePosition {
        let (position, wakes) = state.withTracedLock { state -> (ChangePosition, [@Sendable () -> Void]) in
            let position = ChangePosition(major: state.head.after.major, minor: state.head.after.minor + 1)
            Self.add(StoreChange(position: position, kind: kind), to: &state, capacity: capacity)
            return (position, Array(state.observers.values))
        }
        for wake in wakes { wake() }
        return position
    }

    /// Appends changes whose positions come after `head`, in order (others are dropped: a fetch that
    /// overlapped the last one).
    public func append(_ changes: [StoreChange]) {
        guard !changes.isEmpty else { return }
        let wakes = state.withTracedLock { state -> [@Sendable () -> Void] in
            var added = false
            for change in changes where change.position > state.head.after {
                Self.add(change, to: &state, capacity: capacity)
                added = true
            }
            return added ? Array(state.observers.values) : []
        }
        for wake in wakes { wake() }
    }

    /// Moves `head` to `position` without a change (PostgreSQL: the window starts where the table's
    /// retained changes end); the window then starts there too.
    public func reset(to position: ChangePosition) {
        state.withTracedLock { state in
            state.changes = []
            state.start = 0
            state.floor = position
            state.head = ChangeCursor(after: position)
        }
    }

    private static func add(_ change: StoreChange, to state: inout State, capacity: Int) {
        state.changes.append(change)
        state.appended += 1
        state.head.advance(to: change.position)
        if state.changes.count - state.start > capacity {
            state.floor = state.changes[state.start].position
            state.start += 1
            // Drop the left-behind front once it is as long as the window: amortized O(1).
            if state.start >= capacity {
                state.changes.removeFirst(state.start)
                state.start = 0
            }
        }
    }

    /// At most `limit` changes after `cursor` that it has not seen, or a resync when `cursor` is
    /// older than the window or beyond what this log can know.
    public func replay(after cursor: ChangeCursor, limit: Int = .max) -> Replay {
        state.withTracedLock { state in
            if cursor.after < state.floor { return .resync(head: state.head) }
            // A snapshot cannot have seen further than a position can be ahead: one that claims to
            // (xmax far past the head) would hide every later change from its reader for good.
            if let seen = cursor.seen {
                let (allowed, overflow) = state.head.after.major.addingReportingOverflow(aheadAllowance)
                if !overflow, seen.xmax > allowed, seen.xmax - allowed > 1 { return .resync(head: state.head) }
            }
            if cursor.after > state.head.after {
                let allowed = state.head.after.major.addingReportingOverflow(aheadAllowance)
                if aheadAllowance == 0 || (!allowed.overflow && cursor.after.major > allowed.partialValue) {
                    return .resync(head: state.head)
                }
                return .changes([], end: cursor)
            }
            // The first retained change after the cursor, by bisection.
            var low = state.start, high = state.changes.count
            while low < high {
                let middle = (low + high) / 2
                if state.changes[middle].position <= cursor.after { low = middle + 1 } else { high = middle }
            }
            var found: [StoreChange] = []
            var end = cursor
            var index = low
            while index < state.changes.count, found.count < limit {
                let change = state.changes[index]
                if !cursor.hasSeen(change.position) { found.append(change) }
                end.advance(to: change.position)
                index += 1
            }
            state.examined += index - low
            return .changes(found, end: end)
        }
    }

    /// The cursor `token` names, nil when it is not a token of this log.
    public func cursor(fromToken token: String) -> ChangeCursor? {
        ChangeCursor(token: token, tag: tag, snapshots: handsOutSnapshots)
    }

    /// Calls `wake` after every append (on the appending thread, outside the log's lock) until
    /// `stopObserving` with the answered number.
    public func observe(_ wake: @escaping @Sendable () -> Void) -> UInt64 {
        state.withTracedLock { state in
            state.nextObserver += 1
            state.observers[state.nextObserver] = wake
            return state.nextObserver
        }
    }

    /// Wake-ups registered now.
    var observerCount: Int { state.withTracedLock { $0.observers.count } }

    public func stopObserving(_ observer: UInt64) {
        _ = state.withTracedLock { $0.observers.removeValue(forKey: observer) }
    }
}
