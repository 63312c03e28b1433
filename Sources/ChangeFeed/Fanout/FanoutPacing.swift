/// The pace of one loop's fan-out (`FeedLoopFanout`), as a pure machine: events in (a change came,
/// a slice was sent, the loop's next turn came, a rest ended), an action out, which the fan-out
/// carries out (`FeedLoopFanout.run(_:)`). Times are the loop's clock, handed in with the events.
///
/// A pass over the subscriptions goes `slice` at a time, each slice in its own turn of the loop, so
/// that the loop's requests are served between slices however many subscribers there are. A pass
/// sends each subscription at most one batch (`batch` changes). In a write storm (changes come
/// faster than the subscribers can be sent them: `stormAfter` passes in a row during which more
/// changes came than a pass sends, counted over the time the pass worked rather than rested; it
/// ends once as many passes in a row kept up, or when a rest ends with nothing left to send) each
/// slice is followed by a rest, so that the feed takes at most `loopSharePercent` of the loop's
/// time and requests the rest. A feed that keeps up never rests.
struct FanoutPacing: Sendable, Equatable {
    /// Subscriptions sent to per turn of the loop.
    static let slice = 64
    /// Passes in a row that cannot keep up make a write storm: a pass or two is a hiccup (a slow
    /// turn, many changes at once) that the passes after it make up for. A subscription far behind
    /// (one that did not read for a while, a catch-up after a burst) is no storm: the passes send
    /// it a batch each, at once, between the loop's requests.
    static let stormAfter = 3

    /// What the fan-out does next.
    enum Action: Sendable, Equatable {
        /// Nothing until the next event.
        case none
        /// Take the subscriptions as they are now for a pass, then `passStarted`.
        case startPass
        /// Send to the pass's subscriptions at `range` now (those of them still live), then
        /// `sliceDone`.
        case sendSlice(Range<Int>)
        /// `turnCame()` in the loop's next turn, after the loop polled its sockets (the next slice
        /// of this pass, or the next pass): work queued on the loop from the loop would run before
        /// them, so that a pass would hold every request that came during it until it ended.
        case sliceNextTurn
        /// `restEnded()` after `for`: the share of the loop that the feed may not take.
        case rest(for: Duration)
    }

    /// The pass in progress.
    struct Pass: Sendable, Equatable {
        /// Subscriptions it reaches, and how many of them it has.
        var count: Int
        var passed = 0
        /// When it started, the time its slices took so far, and the log's count of appended
        /// changes then.
        var started: Duration
        var worked: Duration = .zero
        var appendedAtStart: Int
        /// A subscription it reached had more waiting than a pass sends it.
        var behind = false
    }

    enum State: Sendable, Equatable {
        /// No pass, nothing waits.
        case idle
        /// `startPass` was answered: the fan-out is taking its subscriptions.
        case starting
        /// A slice is being sent.
        case sending(Pass)
        /// For the loop's next turn: the pass's next slice, or the next pass (nil).
        case awaitingTurn(Pass?)
        /// Resting, then the pass's next slice, or the next pass (nil).
        case resting(Pass?)
    }

    /// The most of the loop's time the feed takes in a storm, in percent (1...100; 100: it never
    /// rests).
    let loopSharePercent: Int
    /// Changes a pass sends a subscription at most.
    let batch: Int
    private(set) var state = State.idle
    /// Asked for while a pass ran or rested: another pass follows.
    private(set) var passAgain = false
    /// Passes in a row that could not keep up with the changes: more came, at the pace they came
    /// in during the pass, than a pass sends a subscription in the time the pass worked.
    private(set) var passesBehind = 0
    /// In a storm, passes in a row that kept up: `stormAfter` of them end it (one alone may be a
    /// pass that found its subscribers' sockets full and sent little).
    private(set) var passesCalm = 0

    init(loopSharePercent: Int, batch: Int) {
        self.loopSharePercent = min(100, max(1, loopSharePercent))
        self.batch = batch
    }

    /// Whether a pass is under way (started, and not over).
    var isPassing: Bool {
        switch state {
        case .idle, .starting, .awaitingTurn(nil), .resting(nil): false
        case .sending, .awaitingTurn(.some), .resting(.some): true
        }
    }

    /// Whether the feed is in a write storm: each slice rests.
    var inStorm: Bool { passesBehind >= Self.stormAfter }

    /// Changes came, or a subscription takes more again: a pass starts now, unless one runs or the
    /// feed rests (the subscriptions the pass has not reached yet send what waits when reached,
    /// and another pass follows).
    mutating func changed() -> Action {
        switch state {
        case .idle, .awaitingTurn(nil):
            // A next pass waiting for its turn starts now instead.
            state = .starting
            return .startPass
        case .starting, .sending, .awaitingTurn(.some), .resting:
            passAgain = true
            return .none
        }
    }

    /// The fan-out took `subscriptions` for the pass, at `now`, when the log had appended
    /// `appended` changes in all.
    mutating func passStarted(subscriptions: Int, at now: Duration, appended: Int) -> Action {
        guard case .starting = state else { return .none }
        let pass = Pass(count: subscriptions, started: now, appendedAtStart: appended)
        state = .sending(pass)
        return .sendSlice(0..<min(Self.slice, subscriptions))
    }

    /// The slice asked for was sent, in `took`, ending at `now` (`behind`: a subscription has more
    /// waiting than it was sent), when the log had appended `appended` changes in all.
    mutating func sliceDone(took: Duration, at now: Duration, behind: Bool, appended: Int) -> Action {
        guard case .sending(var pass) = state else { return .none }
        pass.passed = min(pass.passed + Self.slice, pass.count)
        pass.worked += took
        pass.behind = pass.behind || behind
        let storm = inStorm
        if pass.passed < pass.count {
            // In a storm every slice rests for what it took; else the next follows at once.
            guard storm else {
                state = .awaitingTurn(pass)
                return .sliceNextTurn
            }
            return rest(after: took, then: pass)
        }
        if overran(pass, at: now, appended: appended) {
            passesBehind += 1
            passesCalm = 0
        } else if storm {
            passesCalm += 1
            if passesCalm >= Self.stormAfter { (passesBehind, passesCalm) = (0, 0) }
        } else {
            passesBehind = 0
        }
        passAgain = passAgain || pass.behind
        // The next pass never starts from here: passes that followed each other at once would
        // nest. In a storm (this pass too could not keep up) it follows a rest.
        if inStorm { return rest(after: took, then: nil) }
        guard passAgain else {
            state = .idle
            return .none
        }
        state = .awaitingTurn(nil)
        return .sliceNextTurn
    }

    /// The loop's next turn came (`sliceNextTurn`).
    mutating func turnCame() -> Action {
        guard case .awaitingTurn(let pass) = state else { return .none }
        return resume(pass)
    }

    /// The rest ended (`rest(for:)`).
    mutating func restEnded() -> Action {
        guard case .resting(let pass) = state else { return .none }
        return resume(pass)
    }

    /// The pass's next slice, or the next pass when one was asked for.
    private mutating func resume(_ pass: Pass?) -> Action {
        if let pass {
            state = .sending(pass)
            return .sendSlice(pass.passed..<min(pass.passed + Self.slice, pass.count))
        }
        state = .idle
        guard passAgain else {
            // A storm's rest ended with nothing left to send: the subscribers caught up, and the
            // next change goes at once.
            (passesBehind, passesCalm) = (0, 0)
            return .none
        }
        passAgain = false
        return changed()
    }

    /// The wait that keeps the feed to its share of the loop after a slice that held the loop
    /// `took` (wall time: a slice preempted by another process held the loop's requests as long);
    /// the next turn when the share is the whole loop.
    private mutating func rest(after took: Duration, then pass: Pass?) -> Action {
        let wait = took * Double(100 - loopSharePercent) / Double(loopSharePercent)
        guard wait > .zero, loopSharePercent < 100 else {
            state = .awaitingTurn(pass)
            return .sliceNextTurn
        }
        state = .resting(pass)
        return .rest(for: wait)
    }

    /// Whether `pass`, ending at `now`, could not keep up: the changes that came during it, scaled
    /// from its whole time to the time it worked (a pass that rested saw more come than one at full
    /// speed would), are more than a pass sends a subscription.
    private func overran(_ pass: Pass, at now: Duration, appended: Int) -> Bool {
        let arrived = appended - pass.appendedAtStart
        guard arrived > batch else { return false }
        let wall = now - pass.started
        guard wall > .zero, pass.worked < wall else { return true }
        return Double(arrived) * (pass.worked / wall) > Double(batch)
    }
}
