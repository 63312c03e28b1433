import EventLoops
import LockTracing
import PostgresLoop
import Synchronization

/// Reads the change feed's table (`TodoEventsSchema`) into the store's `ChangeLog`, on the store's
/// own loop: a window of the newest changes at start, then the changes after the last one read —
/// soon after changes made through this instance (at most every `gap`), when another instance says it read changes
/// made through it (`NOTIFY` on `channel`, heard on a connection of its own that listens), and
/// every `interval` whatever happens (a notification is a hint: what is read comes from the
/// table). Every instance reads the same changes in the same order, so a cursor from one is good
/// on any other.
///
/// Reads start at least `gap` apart: under a stream of writes each read takes the changes of the
/// last `gap` together, where reading after every write cost the database and this loop about
/// as much as a fifth of the writes themselves (issue 22: ~2,000 reads a second of ~2 changes each
/// under 8,000 PATCHes a second). A change after a quiet spell is read at once; a page that came
/// back full is followed at once (catching up).
final class PostgresChangeFeed: @unchecked Sendable {
    /// The tag of PostgreSQL positions in cursor tokens.
    static let tag = "p"
    /// Changes read per statement.
    static let pageSize = 1_000
    /// How far (in transaction ids) a cursor may be ahead of what this instance has read: one from
    /// another instance that read a little further; beyond that it is not one of this database's.
    static let aheadAllowance: UInt64 = 1 << 24

    /// The shared list's changes.
    let log: ChangeLog
    /// Each named owner's changes, in a sibling of `log` (one position order, one retention
    /// budget), made when the first change of theirs is read or when asked for (`log(of:)`),
    /// whichever comes first; and where the window began (nil: not loaded yet), where a log made
    /// later begins too.
    private let owners = Mutex<(logs: [String: ChangeLog], start: ChangePosition?)>(([:], nil))
    private let client: PostgresClient
    private let loop: EventLoop
    private let interval: Duration
    /// The least time between the starts of two reads (`poll`).
    private let gap: Duration
    /// How often an instance prunes the table: by time, since reads follow local writes and would
    /// prune many times a second under load.
    static let pruneInterval: Duration = .seconds(10)
    /// The time (a test's clock moves on at once).
    private let now: @Sendable () -> ContinuousClock.Instant
    // Loop-thread state.
    private var timer: LoopTimer?
    private var started = false
    private var inFlight = false
    private var again = false
    private var closed = false
    private var lastPrune: ContinuousClock.Instant
    /// When the last read started (nil: none yet).
    private var lastRead: ContinuousClock.Instant?
    /// Starts the read held back by `gap`.
    private var gapTimer: LoopTimer?
    /// Reads again after a read that found nothing though a change was made here (or failed): its
    /// transaction may not have been older than every running one yet.
    private var rereadTimer: LoopTimer?
    /// Such reads since the last that found changes or the last write here.
    private var rereads = 0
    /// The most of them, the first `gap` (at least 1 ms) after the read, each next after twice the
    /// wait: ~1.3 s in all with the default gap, then the interval's reads go on.
    static let rereadLimit = 8
    /// Reads started, those of them held back by `gap` first, the rows they read, and the reads that
    /// ended (for tests: none in flight when `readsEnded == reads`).
    let reads = Atomic<Int>(0), readsHeldBack = Atomic<Int>(0), rowsRead = Atomic<Int>(0), readsEnded = Atomic<Int>(0)
    /// A read was asked for (`pollSoon`: a change was made through this instance) and has not
    /// started yet: later asks need not wake the loop. Taken as a read starts (a change made after
    /// that asks again), and then counts as a write for `wroteSinceRead`.
    private let readAsked = Atomic<Bool>(false)
    /// The channel instances tell each other on that they read changes made through them.
    static let channel = "todo_events"
    /// Listens on `channel` (made on the loop at `start`).
    private var listener: PostgresConnection?
    /// A change was made through this instance since a read last found changes.
    private var wroteSinceRead = false
    /// A read found changes after one was made through this instance: tell the others.
    private var toAnnounce = false
    /// The log's head when the others were last told: a write here is told once a read has moved
    /// the head past it, even when the read that moved it started before the write asked (its
    /// change read before its ask arrived).
    private var announcedUpTo = ChangePosition(major: 0, minor: 0)
    private var announcing = false

    init(
        client: PostgresClient, loop: EventLoop, capacity: Int, interval: Duration, gap: Duration = .zero,
        now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }
    ) {
        self.now = now
        self.client = client
        self.loop = loop
        self.interval = interval
        self.gap = gap
        log = ChangeLog(
            tag: Self.tag, capacity: capacity, start: ChangePosition(major: 0, minor: 0), aheadAllowance: Self.aheadAllowance,
            handsOutSnapshots: true)
        lastPrune = now()
    }

    /// `owner`'s change log (made now if there is none yet). An owner's log holds every change of
    /// theirs read since the window began: one is made as soon as a change of theirs is read, so a
    /// log made later (asked for by a request) has missed none of them.
    func log(of owner: Owner) -> ChangeLog {
        owner.isShared ? log : log(ofOwnerNamed: owner.name)
    }

    private func log(ofOwnerNamed name: String) -> ChangeLog {
        if name.isEmpty { return log }
        return owners.withTracedLock { owners in
            if let made = owners.logs[name] { return made }
            let made = log.sibling()
            if let start = owners.start { made.reset(to: start) }
            owners.logs[name] = made
            return made
        }
    }

    /// Owners' logs made so far (for tests).
    var ownerLogCount: Int { owners.withTracedLock { $0.logs.count } }

    /// The cursor of a listing that read with `seen`: every change of the transactions it saw.
    static func cursor(ofListing seen: TransactionSnapshot) -> ChangeCursor {
        ChangeCursor(after: ChangePosition(major: seen.xmin, minor: 0), seen: seen)
    }

    /// Starts reading (from any thread).
    func start() {
        loop.execute { [self] in
            guard !started, !closed else { return }
            started = true
            timer = LoopTimer(loop: loop, repeating: true) { [unowned self] in poll() }
            timer?.schedule(after: interval)
            gapTimer = LoopTimer(loop: loop) { [unowned self] in poll(heldBack: true) }
            rereadTimer = LoopTimer(loop: loop) { [unowned self] in poll() }
            loop.whenStopping { [self] in stopOnLoop() }
            let listener = PostgresConnection(loop: loop, configuration: client.configuration)
            listener.onNotification = { [unowned self] _ in poll() }
            listener.onListening = { [unowned self] in poll() }
            listener.listen(Self.channel)
            listener.start()
            self.listener = listener
            loadWindow()
        }
    }

    /// Reads soon (from any thread): a change was just made through this instance.
    func pollSoon() {
        guard !readAsked.exchange(true, ordering: .acquiringAndReleasing) else { return }
        loop.execute { [self] in
            wroteSinceRead = true
            rereads = 0
            poll()
        }
    }

    /// Stops reading (from any thread).
    func close() {
        loop.execute { [self] in stopOnLoop() }
    }

    private func stopOnLoop() {
        closed = true
        timer?.cancel()
        timer = nil
        gapTimer?.cancel()
        gapTimer = nil
        rereadTimer?.cancel()
        rereadTimer = nil
        listener?.close()
        listener = nil
    }

    private var pool: PostgresLoopPool { client.pool(on: loop) }

    /// The window at start: its first position, then the changes after it.
    private func loadWindow() {
        inFlight = true
        pool.execute(.prepared(TodoSQL.eventsStart), [String(log.capacity)]) { [self] result in
            inFlight = false
            guard !closed else { return }
            guard case .success(let rows) = result, rows.count == 1,
                let xid = rows[0, 0].flatMap({ UInt64($0) }), let seq = rows[0, 1].flatMap({ UInt64($0) })
            else {
                // Not reachable yet: the timer tries again.
                started = false
                return
            }
            let start = ChangePosition(major: xid, minor: seq)
            log.reset(to: start)
            owners.withTracedLock { owners in
                owners.start = start
                for made in owners.logs.values { made.reset(to: start) }
            }
            announcedUpTo = ChangePosition(major: xid, minor: seq)
            readUpTo = nil
            filter = ChangeFilter()
            loaded = true
            poll()
        }
    }

    private var loaded = false
    /// The position of the last change read, kept or not (`ChangeFilter`): the next read starts
    /// after it (nil: after the log's head).
    private var readUpTo: ChangePosition?
    /// Drops the changes of a to-do that arrive after a later one of it.
    private var filter = ChangeFilter()

    /// Reads the changes after the last one read: at once, or when `gap` has passed since the
    /// last read started, or after the read in flight (`catchingUp`: at once, its page was full).
    /// `heldBack`: called by `gapTimer`.
    private func poll(catchingUp: Bool = false, heldBack: Bool = false) {
        guard !closed else { return }
        guard loaded else {
            if !inFlight { loadWindow() }
            return
        }
        guard !inFlight else {
            again = true
            return
        }
        let time = now()
        if !catchingUp, let gapTimer, let lastRead, time - lastRead < gap {
            if !gapTimer.isScheduled { gapTimer.schedule(after: gap - (time - lastRead)) }
            return
        }
        lastRead = time
        if readAsked.exchange(false, ordering: .acquiringAndReleasing) { wroteSinceRead = true }
        reads.add(1, ordering: .relaxed)
        if heldBack { readsHeldBack.add(1, ordering: .relaxed) }
        inFlight = true
        again = false
        let after = readUpTo ?? log.head.after
        let parameters = [String(after.major), String(after.minor), String(Self.pageSize)]
        pool.execute(.prepared(TodoSQL.eventsAfter), parameters) { [self] result in
            inFlight = false
            readsEnded.add(1, ordering: .relaxed)
            guard !closed else { return }
            var full = false
            var found = false
            if case .success(let rows) = result {
                let read = Self.ownedChanges(rows)
                rowsRead.add(rows.count, ordering: .relaxed)
                if let last = read.last?.change.position { readUpTo = last }
                deliver(read)
                found = !read.isEmpty
                if found { rereads = 0 }
                // A page cut short by a row this server cannot read is not followed at once: that
                // row would come back first every time.
                full = rows.count >= Self.pageSize && read.count == rows.count
                let head = log.head.after
                if wroteSinceRead, head > announcedUpTo {
                    wroteSinceRead = false
                    announcedUpTo = head
                    toAnnounce = true
                    announce()
                }
            }
            let time = now()
            if time - lastPrune >= Self.pruneInterval {
                lastPrune = time
                pool.execute(.prepared(TodoSQL.eventsPrune), [String(log.capacity)]) { _ in }
            }
            if full || again {
                poll(catchingUp: full)
            } else if wroteSinceRead, !found {
                rereadSoon()
            }
        }
    }

    /// The changes kept by `filter`, each to its owner's log, a run of one owner's at a time (in
    /// order: the logs' shared retention lets the oldest go first).
    private func deliver(_ read: [(owner: String, change: StoreChange)]) {
        var run: [StoreChange] = []
        var runOwner = ""
        for (owner, change) in read where filter.keeps(change) {
            if owner != runOwner, !run.isEmpty {
                log(ofOwnerNamed: runOwner).append(run)
                run.removeAll(keepingCapacity: true)
            }
            runOwner = owner
            run.append(change)
        }
        if !run.isEmpty { log(ofOwnerNamed: runOwner).append(run) }
    }

    /// After a read that found nothing though a change was made here (the change's transaction
    /// may not have been older than every running one yet), or that failed: another read soon, not
    /// at the next interval, so that the change is told to the other instances within
    /// milliseconds; at most `rereadLimit` of them, each waiting twice the one before.
    private func rereadSoon() {
        guard rereads < Self.rereadLimit, let rereadTimer, !rereadTimer.isScheduled else { return }
        let first = max(gap, .milliseconds(1))
        rereadTimer.schedule(after: first * (1 << rereads))
        rereads += 1
    }

    /// Tells the other instances that changes made through this one can be read, once a read
    /// found changes after one was made here (what this instance read, every instance can: the
    /// changes of finished transactions). One notification at a time; changes made meanwhile are
    /// told by the next.
    private func announce() {
        guard toAnnounce, !announcing, !closed else { return }
        toAnnounce = false
        announcing = true
        pool.execute(.prepared(TodoSQL.eventsAnnounce), []) { [self] _ in
            announcing = false
            announce()
        }
    }

    /// The changes of `TodoSQL.eventColumns` rows, whoever's; a row this server cannot read ends
    /// the batch (read again next time, never skipped).
    static func changes(_ rows: PostgresRows) -> [StoreChange] {
        ownedChanges(rows).map(\.change)
    }

    /// `changes`, each with its owner's name ('' for the shared list).
    static func ownedChanges(_ rows: PostgresRows) -> [(owner: String, change: StoreChange)] {
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
