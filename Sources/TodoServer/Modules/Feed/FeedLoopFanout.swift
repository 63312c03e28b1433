import LockTracing
import Synchronization

/// The subscriptions of one change log on one loop, woken together: the log has one listener per
/// loop (not one per subscriber, which would make every write call each subscriber's wake-up),
/// and changes that come within `batchInterval` after a batch went out wait and go out together
/// (a change after a quiet spell goes at once). A pass over the subscriptions goes `slice` at a
/// time, each slice in its own turn of the loop, so that the loop's requests (writes above all)
/// are served between slices however many subscribers there are. A pass sends each subscription at
/// most one batch: one far behind costs the pass no more than one that keeps up. In a write storm
/// (changes come faster than the subscribers can be sent them: `stormAfter` passes in a row during
/// which more changes came than a pass sends, counted over the time the pass worked rather than
/// rested; it ends once as many passes in a row kept up, or when a rest ends with nothing left to
/// send) each slice is followed by a rest, so that the feed takes at most `loopSharePercent` of the
/// loop's time and requests the rest. Subscribers then fall behind, and those that fall behind
/// the retained changes get a resync. A feed that keeps up never rests. Lives on its loop's thread
/// but for `wake`.
final class FeedLoopFanout: ChangeListener, @unchecked Sendable {
    /// Where wake-ups stand, shared by the threads that append (`wake`) and the loop.
    private enum Wake: UInt8, AtomicRepresentable {
        /// No wake-up queued and no batch just sent: the next change is sent at once.
        case idle
        /// A wake-up is queued on the loop.
        case queued
        /// A batch went out less than an interval ago; the interval's timer runs.
        case cooling
        /// As `cooling`, and a change came since: the timer sends it.
        case coolingWithChanges
    }

    /// Held, so that its identity (the key of `FeedLoopFanouts`) is not another log's.
    private let log: ChangeLog
    private let loop: any FeedLoop
    private let batchInterval: Duration
    private let loopSharePercent: Int
    /// The wait before the next slice, while one runs.
    private var pacing: (any FeedTimer)?
    /// Runs `afterTurn` in the loop's next turn, after the loop polled its sockets (made on first use).
    private var turn: (any FeedTurnTimer)?
    private var afterTurn: ((FeedLoopFanout) -> Void)?
    private let state = Atomic<Wake>(.idle)
    // Loop-thread state.
    /// The subscriptions in the order they started (a pass reaches them in it, so that the feed's
    /// order is the same in every run); nil where one ended, until `compact`.
    private var subscriptions: [FeedSubscription?] = []
    /// Each subscription's index in `subscriptions`.
    private var indexes: [ObjectIdentifier: Int] = [:]
    private var cooldown: (any FeedTimer)?
    /// The pass in progress: the subscriptions it reaches, and how many it has.
    private var pass: [FeedSubscription] = []
    private var passed = 0
    /// Asked for while a pass ran: another pass follows it (the subscriptions it had reached
    /// before the change came have not been sent it).
    private var passAgain = false
    /// A subscription reached in the pass in progress had more waiting than a pass sends it: another
    /// pass follows.
    private var behind = false
    /// When the pass in progress started, the time its slices took so far, and the log's count of
    /// changes then.
    private var passStarted: Duration = .zero
    private var passWorked: Duration = .zero
    private var appendedAtPassStart = 0
    /// Passes in a row that could not keep up with the changes: more came, at the pace they came
    /// in during the pass, than a pass sends a subscription in the time the pass worked.
    private var passesBehind = 0
    /// In a storm, passes in a row that kept up: `stormAfter` of them end it (one alone may be a
    /// pass that found its subscribers' sockets full and sent little).
    private var passesCalm = 0
    /// Passes in a row that cannot keep up make a write storm: a pass or two is a hiccup (a slow
    /// turn, many changes at once) that the passes after it make up for. A subscription far behind
    /// (one that did not read for a while, a catch-up after a burst) is no storm: the passes send
    /// it a batch each, at once, between the loop's requests.
    static let stormAfter = 3
    /// The runs read in the pass in progress, for the subscriptions after them at the same cursor.
    private var runs = FeedRunCache()
    /// Subscriptions sent to per turn of the loop.
    static let slice = 64

    /// What a subscription at some cursor reads.
    enum Read {
        /// The changes after it (at most the limit asked for; none when there are none yet).
        case run(FeedRun)
        /// It is not retained, or not one of this log's: start again from `head`.
        case resync(head: ChangeCursor)
    }

    init(log: ChangeLog, loop: any FeedLoop, batchInterval: Duration, loopSharePercent: Int = 100) {
        self.log = log
        self.loop = loop
        self.batchInterval = batchInterval
        self.loopSharePercent = loopSharePercent
        log.listen(self)
        // Its timers go with the loop's base: a fan-out released after its loop closed frees none.
        loop.whenStopping { [weak self] in
            self?.cooldown?.cancel()
            self?.pacing?.cancel()
            self?.turn?.cancel()
        }
    }

    /// At most `limit` changes after `cursor`: during a pass, read once for every subscription at
    /// that cursor (the run of the first is the run of the rest).
    func read(after cursor: ChangeCursor, limit: Int) -> Read {
        let passing = passed < pass.count
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

    func add(_ subscription: FeedSubscription) {
        let key = ObjectIdentifier(subscription)
        guard indexes[key] == nil else { return }
        indexes[key] = subscriptions.count
        subscriptions.append(subscription)
    }

    func remove(_ subscription: FeedSubscription) {
        guard let index = indexes.removeValue(forKey: ObjectIdentifier(subscription)) else { return }
        subscriptions[index] = nil
        // Once most places are empty, the rest close ranks (amortized: a constant per removal).
        if subscriptions.count > Self.slice, indexes.count * 2 < subscriptions.count { compact() }
    }

    private func compact() {
        subscriptions.removeAll { $0 == nil }
        for (index, subscription) in subscriptions.enumerated() {
            if let subscription { indexes[ObjectIdentifier(subscription)] = index }
        }
    }

    /// The log took changes (on the appending thread, once the store let go of its lock).
    func changesAppended() { wake() }

    /// From the thread that appended a change, or on the loop from a subscription that takes more
    /// again: a pass follows (at once, or when the interval after the last batch ends).
    func wake() {
        while true {
            switch state.load(ordering: .acquiring) {
            case .queued, .coolingWithChanges: return
            case .cooling:
                if state.compareExchange(expected: .cooling, desired: .coolingWithChanges, ordering: .acquiringAndReleasing).exchanged {
                    return
                }
            case .idle:
                if state.compareExchange(expected: .idle, desired: .queued, ordering: .acquiringAndReleasing).exchanged {
                    loop.execute { [self] in sendNow() }
                    return
                }
            }
        }
    }

    /// On the loop: sends what waits and starts an interval in which later changes wait. The
    /// state moves before the log is read, so a change appended during the send is sent by the
    /// timer, never lost.
    private func sendNow() {
        guard batchInterval > .zero else {
            state.store(.idle, ordering: .releasing)
            return changed()
        }
        state.store(.cooling, ordering: .releasing)
        changed()
        if cooldown == nil {
            cooldown = loop.repeating(every: batchInterval) { [weak self] in self?.intervalEnded() }
        }
    }

    /// On the loop, an interval after a batch: sends the changes that came meanwhile (and waits
    /// another interval), or stops waiting when none came.
    private func intervalEnded() {
        while true {
            switch state.load(ordering: .acquiring) {
            case .coolingWithChanges:
                if state.compareExchange(expected: .coolingWithChanges, desired: .cooling, ordering: .acquiringAndReleasing)
                    .exchanged
                {
                    return changed()
                }
            case .cooling:
                if state.compareExchange(expected: .cooling, desired: .idle, ordering: .acquiringAndReleasing).exchanged {
                    cooldown?.cancel()
                    cooldown = nil
                    return
                }
            case .idle, .queued:
                return  // not cooling: no interval runs
            }
        }
    }

    /// Each subscription sends what it has not, in slices. While a pass runs or the feed rests
    /// after one, another is not started: the subscriptions it has not reached yet send what
    /// waits when reached, and the next pass starts when this one (or the rest) ends.
    private func changed() {
        guard passed == pass.count, pacing == nil else {
            passAgain = true
            return
        }
        // What a turn timer armed before would have run (a `passIfAsked`) this pass does.
        afterTurn = nil
        pass = subscriptions.compactMap { $0 }
        passed = 0
        runs.clear()
        passStarted = loop.wallTime
        passWorked = .zero
        appendedAtPassStart = log.appendedCount
        continuePass()
    }

    private func continuePass() {
        let started = loop.wallTime
        let end = min(passed + Self.slice, pass.count)
        while passed < end {
            // One may end here: the pass holds it until the pass is over.
            if pass[passed].changed() { behind = true }
            passed += 1
        }
        let took = loop.wallTime - started
        passWorked += took
        let storm = passesBehind >= Self.stormAfter
        if passed < pass.count {
            // In a storm every slice rests for what it took; else the next follows at once.
            guard storm else { return nextTurn { $0.continuePass() } }
            rest(for: took) { $0.continuePass() }
        } else {
            pass = []
            passed = 0
            runs.clear()
            if overrun() {
                passesBehind += 1
                passesCalm = 0
            } else if storm {
                passesCalm += 1
                if passesCalm >= Self.stormAfter { (passesBehind, passesCalm) = (0, 0) }
            } else {
                passesBehind = 0
            }
            passAgain = passAgain || behind
            behind = false
            // The next pass never starts from here: passes that followed each other at once
            // would nest. In a storm (this pass too could not keep up) it follows a rest.
            if passesBehind >= Self.stormAfter {
                rest(for: took) { $0.passIfAsked() }
            } else if passAgain {
                nextTurn { $0.passIfAsked() }
            }
        }
    }

    /// Whether the pass that just ended could not keep up: the changes that came during it, scaled
    /// from its whole time to the time it worked (a pass that rested saw more come than one at full
    /// speed would), are more than a pass sends a subscription.
    private func overrun() -> Bool {
        let arrived = log.appendedCount - appendedAtPassStart
        guard arrived > FeedSubscription.batch else { return false }
        let wall = loop.wallTime - passStarted
        guard wall > .zero, passWorked < wall else { return true }
        return Double(arrived) * (passWorked / wall) > Double(FeedSubscription.batch)
    }

    private func passIfAsked() {
        guard passAgain else {
            // A storm's rest ended with nothing left to send: the subscribers caught up, and the
            // next change goes at once.
            (passesBehind, passesCalm) = (0, 0)
            return
        }
        passAgain = false
        changed()
    }

    /// Runs `next` in the loop's next turn, after the loop polled its sockets: a slice or pass
    /// queued with `execute` would run before them (libevent runs what is made active during a turn
    /// in that turn), so that a pass would hold every request that came during it until it ended.
    /// Without one (libevent could not make the timer), in this turn.
    private func nextTurn(_ next: @escaping (FeedLoopFanout) -> Void) {
        afterTurn = next
        if turn == nil {
            turn = loop.turnTimer { [weak self] in self?.turnCame() }
        }
        guard let turn else { return loop.execute { [self] in turnCame() } }
        turn.arm()
    }

    private func turnCame() {
        guard let next = afterTurn else { return }
        afterTurn = nil
        next(self)
    }

    /// Runs `next` after the wait that keeps the feed to its share of the loop for a slice that
    /// held the loop `took` (wall time: a slice preempted by another process held the loop's
    /// requests as long); at once when the share is the whole loop.
    private func rest(for took: Duration, _ next: @escaping @Sendable (FeedLoopFanout) -> Void) {
        let wait = took * Double(100 - loopSharePercent) / Double(loopSharePercent)
        guard wait > .zero, loopSharePercent < 100 else { return nextTurn(next) }
        pacing = loop.repeating(every: wait) { [weak self] in
            guard let self else { return }
            pacing?.cancel()
            pacing = nil
            next(self)
        }
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

    private let fanouts = Mutex<[Key: FeedLoopFanout]>([:])

    /// `loop`'s fan-out of `log` (made on first use).
    func fanout(of log: ChangeLog, on loop: any FeedLoop, batchInterval: Duration, loopSharePercent: Int = 100) -> FeedLoopFanout {
        fanouts.withTracedLock { fanouts in
            let key = Key(log: ObjectIdentifier(log), loop: loop.identity)
            if let fanout = fanouts[key] { return fanout }
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
