import LockTracing
import Synchronization

/// The subscriptions of one change log on one loop, woken together: the log has one listener per
/// loop (not one per subscriber, which would make every write call each subscriber's wake-up),
/// and changes that come within `batchInterval` after a batch went out wait and go out together
/// (a change after a quiet spell goes at once: `FanoutWake`). Passes over the subscriptions go a
/// slice at a time and rest in a write storm as `FanoutPacing` decides; this shell keeps the
/// subscriptions, the runs read in a pass and the timers, and carries out the machine's actions
/// (`run(_:)`). Lives on its loop's thread but for `wake`.
final class FeedLoopFanout<Kind: RecordedChange>: ChangeListener, @unchecked Sendable {
    /// Held, so that its identity (the key of `FeedLoopFanouts`) is not another log's.
    private let log: ChangeLog<Kind>
    private let loop: any FeedLoop
    private let batchInterval: Duration
    /// `wake`, as made by `init`: a generic class's protocol witness (`changesAppended`, which the
    /// log calls) runs the class's generic code unspecialised, where a closure made in `init` (which
    /// the caller's code runs specialised for its kind of change) runs the specialised code. Set
    /// once, before the log can call it.
    private var wakeUp: @Sendable () -> Void = {}
    /// Where wake-ups stand, shared by the threads that append (`wake`) and the loop.
    private let state = Atomic<FanoutWake>(.idle)
    // Loop-thread state.
    private var pacing: FanoutPacing
    /// The rest's timer, while the feed rests.
    private var rest: (any FeedTimer)?
    /// Tells the machine that the loop's next turn came (made on first use).
    private var turn: (any FeedTurnTimer)?
    /// The subscriptions in the order they started (a pass reaches them in it, so that the feed's
    /// order is the same in every run); nil where one ended, until `compact`.
    private var subscriptions: [FeedSubscription<Kind>?] = []
    /// Each subscription's index in `subscriptions`.
    private var indexes: [ObjectIdentifier: Int] = [:]
    private var cooldown: (any FeedTimer)?
    /// The subscriptions the pass in progress reaches (it holds those that end meanwhile).
    private var pass: [FeedSubscription<Kind>] = []
    /// The runs read in the pass in progress, for the subscriptions after them at the same cursor.
    private var runs = FeedRunCache<Kind>()

    /// What a subscription at some cursor reads.
    enum Read {
        /// The changes after it (at most the limit asked for; none when there are none yet).
        case run(FeedRun<Kind>)
        /// It is not retained, or not one of this log's: start again from `head`.
        case resync(head: ChangeCursor)
    }

    /// `loopSharePercent`: the most of the loop's time a pass takes in a write storm
    /// (`FanoutPacing`).
    init(log: ChangeLog<Kind>, loop: any FeedLoop, batchInterval: Duration, loopSharePercent: Int) {
        self.log = log
        self.loop = loop
        self.batchInterval = batchInterval
        pacing = FanoutPacing(loopSharePercent: loopSharePercent, batch: FeedSubscription<Kind>.batch)
        wakeUp = { [weak self] in self?.wake() }
        log.listen(self)
        // Its timers go with the loop's base: a fan-out released after its loop closed frees none.
        loop.whenStopping { [weak self] in
            self?.cooldown?.cancel()
            self?.rest?.cancel()
            self?.turn?.cancel()
        }
    }

    /// At most `limit` changes after `cursor`: during a pass, read once for every subscription at
    /// that cursor (the run of the first is the run of the rest).
    func read(after cursor: ChangeCursor, limit: Int) -> Read {
        let passing = pacing.isPassing
        if passing, let run = runs.run(after: cursor) { return .run(run) }
        switch log.replay(after: cursor, limit: limit) {
        case .resync(let head):
            return .resync(head: head)
        case .changes(let changes, let end):
            let run = FeedRun(changes: changes, after: cursor, end: end, tag: log.tag)
            if passing { runs.keep(run, after: cursor) }
            return .run(run)
        }
    }

    func add(_ subscription: FeedSubscription<Kind>) {
        let key = ObjectIdentifier(subscription)
        guard indexes[key] == nil else { return }
        indexes[key] = subscriptions.count
        subscriptions.append(subscription)
    }

    func remove(_ subscription: FeedSubscription<Kind>) {
        guard let index = indexes.removeValue(forKey: ObjectIdentifier(subscription)) else { return }
        subscriptions[index] = nil
        // Once most places are empty, the rest close ranks (amortized: a constant per removal).
        if subscriptions.count > FanoutPacing.slice, indexes.count * 2 < subscriptions.count { compact() }
    }

    private func compact() {
        subscriptions.removeAll { $0 == nil }
        for (index, subscription) in subscriptions.enumerated() {
            if let subscription { indexes[ObjectIdentifier(subscription)] = index }
        }
    }

    /// The log took changes (on the appending thread, once the store let go of its lock).
    func changesAppended() { wakeUp() }

    /// From the thread that appended a change, or on the loop from a subscription that takes more
    /// again: a pass follows (at once, or when the interval after the last batch ends).
    func wake() {
        var current = state.load(ordering: .acquiring)
        while let (next, wakeLoop) = current.afterChange {
            let (exchanged, original) = state.compareExchange(expected: current, desired: next, ordering: .acquiringAndReleasing)
            if exchanged {
                if wakeLoop { loop.execute { [self] in woken() } }
                return
            }
            current = original
        }
    }

    /// On the loop, the wake-up queued: sends what waits and starts an interval in which later
    /// changes wait.
    private func woken() {
        let batching = batchInterval > .zero
        state.store(FanoutWake.woken(batching: batching), ordering: .releasing)
        run(pacing.changed())
        if batching, cooldown == nil {
            cooldown = loop.repeating(every: batchInterval) { [weak self] in self?.intervalEnded() }
        }
    }

    /// On the loop, an interval after a batch: sends the changes that came meanwhile (and waits
    /// another interval), or stops waiting when none came.
    private func intervalEnded() {
        var current = state.load(ordering: .acquiring)
        while let (next, end) = current.afterInterval {
            let (exchanged, original) = state.compareExchange(expected: current, desired: next, ordering: .acquiringAndReleasing)
            guard exchanged else {
                current = original
                continue
            }
            switch end {
            case .send:
                run(pacing.changed())
            case .stopTimer:
                cooldown?.cancel()
                cooldown = nil
            }
            return
        }
    }

    /// Carries out `action` and those the machine answers to what it did, until one waits for a
    /// turn, a rest or the next change.
    private func run(_ action: FanoutPacing.Action) {
        var action = action
        while true {
            switch action {
            case .none:
                return
            case .startPass:
                pass = subscriptions.compactMap { $0 }
                runs.clear()
                action = pacing.passStarted(subscriptions: pass.count, at: loop.wallTime, appended: log.appendedCount)
            case .sendSlice(let range):
                let started = loop.wallTime
                var behind = false
                // One may end here: the pass holds it until the pass is over.
                for index in range where pass[index].changed() { behind = true }
                let ended = loop.wallTime
                action = pacing.sliceDone(took: ended - started, at: ended, behind: behind, appended: log.appendedCount)
                if !pacing.isPassing {
                    pass = []
                    runs.clear()
                }
            case .sliceNextTurn:
                return nextTurn()
            case .rest(let wait):
                rest = loop.repeating(every: wait) { [weak self] in
                    guard let self else { return }
                    rest?.cancel()
                    rest = nil
                    run(pacing.restEnded())
                }
                return
            }
        }
    }

    /// Tells the machine that the loop's next turn came, after the loop polled its sockets (a
    /// libevent timer of no delay: `FeedLoop.turnTimer`). Without one (libevent could not make the
    /// timer), through `execute`, which also runs its work in the next turn.
    private func nextTurn() {
        if turn == nil {
            turn = loop.turnTimer { [weak self] in
                guard let self else { return }
                run(pacing.turnCame())
            }
        }
        guard let turn else { return loop.execute { [self] in run(pacing.turnCame()) } }
        turn.arm()
    }
}

/// The fan-outs of the feed's change logs (the shared list's, and each owner's), one per log and
/// loop. Held by the feed's hub, not by the loops: a fan-out holds its loop, so a loop holding it
/// would keep both alive after the server is gone.
final class FeedLoopFanouts: Sendable {
    private struct Key: Hashable {
        let log: ObjectIdentifier
        let loop: UInt
    }

    /// Each a `FeedLoopFanout` of its log's kind of change.
    private let fanouts = Mutex<[Key: AnyObject]>([:])

    /// `loop`'s fan-out of `log` (made on first use).
    func fanout<Kind>(of log: ChangeLog<Kind>, on loop: any FeedLoop, batchInterval: Duration, loopSharePercent: Int) -> FeedLoopFanout<
        Kind
    > {
        fanouts.withTracedLock { fanouts in
            let key = Key(log: ObjectIdentifier(log), loop: loop.identity)
            if let fanout = fanouts[key] as? FeedLoopFanout<Kind> { return fanout }
            let fanout = FeedLoopFanout(log: log, loop: loop, batchInterval: batchInterval, loopSharePercent: loopSharePercent)
            fanouts[key] = fanout
            // A stopped loop's fan-out has its timers cancelled: a later loop at the same address
            // (the identity) gets a fan-out of its own.
            loop.whenStopping { [weak self, weak fanout] in
                guard let self, let fanout else { return }
                self.fanouts.withTracedLock { fanouts in
                    if fanouts[key] === fanout { fanouts[key] = nil }
                }
            }
            return fanout
        }
    }
}
