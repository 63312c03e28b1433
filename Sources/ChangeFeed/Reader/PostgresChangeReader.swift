import EventLoops
import LockTracing
import PostgresLoop
import Synchronization

/// Reads a change table (`ChangeTable`: the store's, `TodoEventsSchema`) into change logs, one for
/// the shared list and a sibling for each owner, on the store's own loop: a window of the newest changes at start, then the changes after the last one read —
/// soon after changes made through this instance (`pollSoon`), when another instance says it read
/// changes made through it (`NOTIFY` on `channel`, heard on a connection of its own that listens),
/// and every `interval` whatever happens (a notification is a hint: what is read comes from the
/// table). Every instance reads the same changes in the same order, so a cursor from one is good
/// on any other. When to read, read again and tell the others is `ChangeReaderStateMachine`'s
/// to decide; this shell runs the statements, the timers and the listener (`run(_:)`).
///
/// Reads start at least `gap` apart: under a stream of writes each read takes the changes of the
/// last `gap` together, where reading after every write cost the database and this loop about
/// as much as a fifth of the writes themselves (issue 22: ~2,000 reads a second of ~2 changes each
/// under 8,000 PATCHes a second).
public final class PostgresChangeReader<Table: ChangeTable>: @unchecked Sendable {
    public typealias Kind = Table.Kind
    /// The tag of PostgreSQL positions in cursor tokens.
    public static var tag: String { "p" }
    /// How far (in transaction ids) a cursor may be ahead of what this instance has read: one from
    /// another instance that read a little further; beyond that it is not one of this database's.
    public static var aheadAllowance: UInt64 { 1 << 24 }

    /// The shared list's changes.
    public let log: ChangeLog<Kind>
    /// Each named owner's changes, in a sibling of `log` (one position order, one retention
    /// budget), made when the first change of theirs is read or when asked for (`log(of:)`),
    /// whichever comes first; and where the window began (nil: not loaded yet), where a log made
    /// later begins too.
    private let owners = Mutex<(logs: [String: ChangeLog<Kind>], start: ChangePosition?)>(([:], nil))
    private let client: PostgresClient
    private let loop: EventLoop
    private let interval: Duration
    /// The time (a test's clock moves on at once).
    private let now: @Sendable () -> ContinuousClock.Instant
    // Loop-thread state.
    private var machine: ChangeReaderStateMachine
    private var started = false
    private var timer: LoopTimer?
    /// Starts the read held back by the gap.
    private var gapTimer: LoopTimer?
    /// Reads again after a read that found nothing though a change was made here (or failed).
    private var rereadTimer: LoopTimer?
    /// Reads started, those of them held back by `gap` first, the rows they read, and the reads that
    /// ended (for tests: none in flight when `readsEnded == reads`).
    package let reads = Atomic<Int>(0), readsHeldBack = Atomic<Int>(0), rowsRead = Atomic<Int>(0), readsEnded = Atomic<Int>(0)
    /// Reads that found the changes after their position pruned, so that the window started again.
    package let windowsRestarted = Atomic<Int>(0)
    /// A read was asked for (`pollSoon`: a change was made through this instance) and has not
    /// started yet: later asks need not wake the loop. Taken as a read starts (a change made after
    /// that asks again), and then counts as a write (`ChangeReaderStateMachine.askTaken`).
    private let readAsked = Atomic<Bool>(false)
    /// The channel instances tell each other on that they read changes made through them.
    public static var channel: String { Table.channel }
    /// Listens on `channel` (made on the loop at `start`).
    private var listener: PostgresConnection?
    /// Drops the changes of a to-do that arrive after a later one of it.
    private var filter = Table.Filter()

    public init(
        client: PostgresClient, loop: EventLoop, capacity: Int, interval: Duration, gap: Duration,
        now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }
    ) {
        self.now = now
        self.client = client
        self.loop = loop
        self.interval = interval
        machine = ChangeReaderStateMachine(settings: .init(gap: gap), now: now())
        log = ChangeLog(
            tag: Self.tag, capacity: capacity, start: ChangePosition(major: 0, minor: 0), aheadAllowance: Self.aheadAllowance,
            handsOutSnapshots: true)
    }

    /// The change log of the owner named `name` ('' for the shared list's: `log`), made now if
    /// there is none yet. An owner's log holds every change of theirs read since the window began:
    /// one is made as soon as a change of theirs is read, so a log made later (asked for by a
    /// request) has missed none of them.
    public func log(ofOwnerNamed name: String) -> ChangeLog<Kind> {
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
    package var ownerLogCount: Int { owners.withTracedLock { $0.logs.count } }

    /// The cursor of a listing that read with `seen`: every change of the transactions it saw.
    public static func cursor(ofListing seen: TransactionSnapshot) -> ChangeCursor {
        ChangeCursor(after: ChangePosition(major: seen.xmin, minor: 0), seen: seen)
    }

    /// Starts reading (from any thread).
    public func start() {
        loop.execute { [self] in
            guard !started, !machine.closed else { return }
            started = true
            timer = LoopTimer(loop: loop, repeating: true) { [unowned self] in run(machine.intervalEnded(now: now())) }
            timer?.schedule(after: interval)
            gapTimer = LoopTimer(loop: loop) { [unowned self] in run(machine.gapEnded(now: now())) }
            rereadTimer = LoopTimer(loop: loop) { [unowned self] in run(machine.rereadDue(now: now())) }
            loop.whenStopping { [self] in stopOnLoop() }
            let listener = PostgresConnection(loop: loop, configuration: client.configuration)
            listener.onNotification = { [unowned self] _ in run(machine.notified(now: now())) }
            listener.onListening = { [unowned self] in run(machine.listening(now: now())) }
            listener.listen(Self.channel)
            listener.start()
            self.listener = listener
            run(machine.start())
        }
    }

    /// Reads soon (from any thread): a change was just made through this instance.
    public func pollSoon() {
        guard !readAsked.exchange(true, ordering: .acquiringAndReleasing) else { return }
        loop.execute { [self] in run(machine.wrote(now: now())) }
    }

    /// Stops reading (from any thread).
    public func close() {
        loop.execute { [self] in stopOnLoop() }
    }

    private func stopOnLoop() {
        machine.close()
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

    /// Carries out the machine's actions, in order.
    private func run(_ actions: [ChangeReaderStateMachine.Action]) {
        for action in actions {
            switch action {
            case .loadWindow: loadWindow()
            case .readNow(let after, let heldBack): read(after: after, heldBack: heldBack)
            case .armGap(let wait): gapTimer?.schedule(after: wait)
            case .armReread(let wait): rereadTimer?.schedule(after: wait)
            case .announce:
                pool.execute(.prepared(Table.announce), []) { [self] _ in run(machine.announceDone()) }
            case .prune:
                pool.execute(.prepared(Table.prune), [String(log.capacity)]) { _ in }
            }
        }
    }

    /// The window at start: its first position, then the changes after it.
    private func loadWindow() {
        pool.execute(.prepared(Table.windowStart), [String(log.capacity)]) { [self] result in
            guard !machine.closed else { return run(machine.windowFailed()) }
            guard case .success(let rows) = result, rows.count == 1,
                let xid = rows[0, 0].flatMap({ UInt64($0) }), let seq = rows[0, 1].flatMap({ UInt64($0) })
            else {
                // Not reachable yet: the next ask (the interval's at the latest) tries again.
                started = false
                return run(machine.windowFailed())
            }
            let start = ChangePosition(major: xid, minor: seq)
            // Every log at once (under the owners' lock, so that a log made meanwhile starts there
            // too), then their shared budget; listeners are told after (a window read again after a
            // prune: their readers at older positions resync now, not at their log's next change).
            let announcements = owners.withTracedLock { owners in
                owners.start = start
                var announcements = [log.reset(to: start)]
                for made in owners.logs.values { announcements.append(made.reset(to: start)) }
                log.resetRetention()
                return announcements
            }
            for announcement in announcements { announcement.announce() }
            filter = Table.Filter()
            run(machine.windowLoaded(start: start, now: now()))
        }
    }

    /// Reads the changes after `after` (nil: after the log's head).
    private func read(after: ChangePosition?, heldBack: Bool) {
        if readAsked.exchange(false, ordering: .acquiringAndReleasing) { machine.askTaken() }
        reads.add(1, ordering: .relaxed)
        if heldBack { readsHeldBack.add(1, ordering: .relaxed) }
        let after = after ?? log.head.after
        let parameters = [String(after.major), String(after.minor), String(machine.settings.pageSize)]
        pool.execute(.prepared(Table.changesAfter), parameters) { [self] result in
            readsEnded.add(1, ordering: .relaxed)
            guard !machine.closed, case .success(let rows) = result else { return run(machine.readFailed(now: now())) }
            if Table.pruned(rows) {
                windowsRestarted.add(1, ordering: .relaxed)
                return run(machine.readPruned())
            }
            let read = Table.changes(rows)
            rowsRead.add(rows.count, ordering: .relaxed)
            deliver(read)
            run(
                machine.readDone(
                    rows: rows.count, decoded: read.count, last: read.last?.change.position, head: log.head.after, now: now()))
        }
    }

    /// The changes kept by `filter`, each to its owner's log, a run of one owner's at a time (in
    /// order: the logs' shared retention lets the oldest go first).
    private func deliver(_ read: [(owner: String, change: LoggedChange<Kind>)]) {
        var run: [LoggedChange<Kind>] = []
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

    /// The changes of rows `Table.changesAfter` read, whoever's; a row this server cannot read ends
    /// them (read again next time, never skipped).
    public static func changes(_ rows: PostgresRows) -> [LoggedChange<Kind>] {
        Table.changes(rows).map(\.change)
    }
}
