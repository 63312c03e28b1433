import Testing

@testable import ChangeFeed

/// The fan-out's pace as a pure machine: events and the loop's clock in (plain durations, the test's
/// own), actions out; no loop, no timer.
@Suite("Fan-out pacing: slices, turns, storms and rests")
struct FanoutPacingTests {
    /// A machine taking at most a quarter of the loop in a storm, sending 64 changes a pass.
    private func machine(share: Int = 25) -> FanoutPacing {
        FanoutPacing(loopSharePercent: share, batch: 64)
    }

    private static func ms(_ value: Int) -> Duration { .milliseconds(value) }

    /// Runs one pass of one slice over `subscriptions`, from `start`, that took `took` while
    /// `arrived` changes came; answers what the machine says at its end.
    private func pass(
        _ pacing: inout FanoutPacing, subscriptions: Int = 1, start: Duration, took: Duration, arrived: Int, behind: Bool = false
    ) -> FanoutPacing.Action {
        #expect(pacing.passStarted(subscriptions: subscriptions, at: start, appended: 0) == .sendSlice(0..<subscriptions))
        return pacing.sliceDone(took: took, at: start + took, behind: behind, appended: arrived)
    }

    @Test func aChangeStartsAPassAndAPassThatKeepsUpEndsIdle() {
        var pacing = machine()
        #expect(pacing.changed() == .startPass)
        #expect(pacing.state == .starting)
        #expect(pacing.passStarted(subscriptions: 3, at: Self.ms(5), appended: 7) == .sendSlice(0..<3))
        #expect(pacing.isPassing)
        #expect(pacing.sliceDone(took: Self.ms(1), at: Self.ms(6), behind: false, appended: 8) == FanoutPacing.Action.none)
        #expect(pacing.state == .idle)
        #expect(!pacing.isPassing)
        #expect(pacing.changed() == .startPass, "the next change starts the next pass at once")
    }

    @Test func aPassGoesASliceATurnAndEachNextSliceWaitsForTheLoopsNextTurn() {
        var pacing = machine()
        let count = FanoutPacing.slice * 2 + 1
        _ = pacing.changed()
        #expect(pacing.passStarted(subscriptions: count, at: .zero, appended: 0) == .sendSlice(0..<64))
        #expect(pacing.sliceDone(took: Self.ms(1), at: Self.ms(1), behind: false, appended: 0) == .sliceNextTurn)
        #expect(pacing.turnCame() == .sendSlice(64..<128))
        #expect(pacing.turnCame() == FanoutPacing.Action.none, "a turn while a slice is sent does nothing")
        #expect(pacing.sliceDone(took: Self.ms(1), at: Self.ms(2), behind: false, appended: 0) == .sliceNextTurn)
        #expect(pacing.turnCame() == .sendSlice(128..<129))
        #expect(pacing.sliceDone(took: Self.ms(1), at: Self.ms(3), behind: false, appended: 0) == FanoutPacing.Action.none)
        #expect(pacing.state == .idle)
    }

    @Test func aPassWithNoSubscriptionsEndsAtItsFirstSlice() {
        var pacing = machine()
        _ = pacing.changed()
        #expect(pacing.passStarted(subscriptions: 0, at: .zero, appended: 0) == .sendSlice(0..<0))
        #expect(pacing.sliceDone(took: .zero, at: .zero, behind: false, appended: 0) == FanoutPacing.Action.none)
        #expect(pacing.state == .idle)
    }

    @Test func changesDuringAPassBringAnotherPassInTheNextTurnNeverAtOnce() {
        var pacing = machine()
        _ = pacing.changed()
        _ = pacing.passStarted(subscriptions: 1, at: .zero, appended: 0)
        #expect(pacing.changed() == FanoutPacing.Action.none, "a pass runs")
        #expect(pacing.passAgain)
        #expect(pacing.sliceDone(took: Self.ms(1), at: Self.ms(1), behind: false, appended: 1) == .sliceNextTurn)
        #expect(pacing.state == .awaitingTurn(nil))
        #expect(!pacing.isPassing)
        #expect(pacing.turnCame() == .startPass)
        #expect(!pacing.passAgain)
    }

    @Test func aSubscriptionLeftBehindBringsAnotherPass() {
        var pacing = machine()
        _ = pacing.changed()
        #expect(pass(&pacing, start: .zero, took: Self.ms(1), arrived: 0, behind: true) == .sliceNextTurn)
        #expect(pacing.turnCame() == .startPass)
    }

    @Test func aChangeWhileTheNextPassWaitsForItsTurnStartsItAtOnce() {
        var pacing = machine()
        _ = pacing.changed()
        _ = pass(&pacing, start: .zero, took: Self.ms(1), arrived: 0, behind: true)
        #expect(pacing.changed() == .startPass)
        #expect(pass(&pacing, start: Self.ms(1), took: Self.ms(1), arrived: 0) == .sliceNextTurn, "the pass asked before still follows")
        #expect(pacing.turnCame() == .startPass)
        #expect(pass(&pacing, start: Self.ms(2), took: Self.ms(1), arrived: 0) == FanoutPacing.Action.none)
        #expect(pacing.turnCame() == FanoutPacing.Action.none, "the turn armed before finds nothing to do")
    }

    @Test func stormAfterPassesInARowThatCouldNotKeepUpMakeAStormAndTheLastRestsForTheShare() {
        var pacing = machine(share: 25)
        #expect(pacing.changed() == .startPass)
        for index in 1...FanoutPacing.stormAfter {
            // 100 changes came during a pass that worked all its time: more than the 64 it sends.
            let action = pass(&pacing, start: Self.ms(index * 2), took: Self.ms(2), arrived: 100, behind: true)
            #expect(pacing.passesBehind == index)
            if index < FanoutPacing.stormAfter {
                #expect(action == .sliceNextTurn)
                #expect(!pacing.inStorm)
                #expect(pacing.turnCame() == .startPass)
            } else {
                // 2 ms of work at 25 %: 6 ms of rest.
                #expect(action == .rest(for: Self.ms(6)))
                #expect(pacing.inStorm)
            }
        }
        #expect(pacing.changed() == FanoutPacing.Action.none, "no pass while the feed rests")
        #expect(pacing.turnCame() == FanoutPacing.Action.none)
        #expect(pacing.restEnded() == .startPass)
    }

    @Test func inAStormEverySliceRestsForThreeTimesWhatItTook() {
        var pacing = stormy()
        _ = pacing.restEnded()
        #expect(pacing.passStarted(subscriptions: FanoutPacing.slice * 2 + 1, at: Self.ms(100), appended: 0) == .sendSlice(0..<64))
        #expect(pacing.sliceDone(took: Self.ms(2), at: Self.ms(102), behind: false, appended: 0) == .rest(for: Self.ms(6)))
        #expect(pacing.isPassing)
        #expect(pacing.turnCame() == FanoutPacing.Action.none)
        #expect(pacing.restEnded() == .sendSlice(64..<128))
        #expect(pacing.sliceDone(took: Self.ms(1), at: Self.ms(109), behind: false, appended: 0) == .rest(for: Self.ms(3)))
        #expect(pacing.restEnded() == .sendSlice(128..<129))
        // The pass kept up (nothing came): one calm pass of `stormAfter`, and it still rests.
        #expect(pacing.sliceDone(took: Self.ms(1), at: Self.ms(113), behind: false, appended: 0) == .rest(for: Self.ms(3)))
        #expect(pacing.passesCalm == 1 && pacing.inStorm)
    }

    /// A machine in a storm, resting before its next pass (one was asked for).
    private func stormy() -> FanoutPacing {
        var pacing = machine(share: 25)
        for index in 0..<FanoutPacing.stormAfter {
            if index == 0 { _ = pacing.changed() } else { _ = pacing.turnCame() }
            _ = pass(&pacing, start: Self.ms(index * 2), took: Self.ms(2), arrived: 100, behind: true)
        }
        #expect(pacing.state == .resting(nil) && pacing.passAgain)
        return pacing
    }

    @Test func aStormEndsOnlyOnceStormAfterPassesInARowKeptUp() {
        var pacing = stormy()
        for calm in 1...FanoutPacing.stormAfter {
            #expect(pacing.restEnded() == .startPass)
            let action = pass(&pacing, start: Self.ms(100 * calm), took: Self.ms(1), arrived: 0, behind: calm < FanoutPacing.stormAfter)
            if calm < FanoutPacing.stormAfter {
                #expect(action == .rest(for: Self.ms(3)), "pass \(calm): calm, still a storm")
                #expect(pacing.passesCalm == calm)
            } else {
                #expect(action == FanoutPacing.Action.none, "the third calm pass ends the storm")
                #expect(!pacing.inStorm && pacing.passesCalm == 0)
            }
        }
    }

    @Test func aStormsRestThatEndsWithNothingLeftToSendEndsTheStorm() {
        var pacing = stormy()
        #expect(pacing.restEnded() == .startPass)
        #expect(pass(&pacing, start: Self.ms(100), took: Self.ms(1), arrived: 0) == .rest(for: Self.ms(3)))
        #expect(!pacing.passAgain)
        #expect(pacing.restEnded() == FanoutPacing.Action.none)
        #expect(!pacing.inStorm && pacing.state == .idle)
    }

    @Test func changesCountedOverTheTimeAPassWorkedNotTheTimeItRested() {
        var pacing = stormy()
        _ = pacing.restEnded()
        // 100 changes came in a pass of 10 ms that worked 2 ms of them: at full speed 20 would have
        // come, fewer than a pass sends. Not an overrun: a calm pass.
        _ = pacing.passStarted(subscriptions: FanoutPacing.slice + 1, at: Self.ms(100), appended: 0)
        #expect(pacing.sliceDone(took: Self.ms(1), at: Self.ms(101), behind: false, appended: 0) == .rest(for: Self.ms(3)))
        #expect(pacing.restEnded() == .sendSlice(64..<65))
        _ = pacing.sliceDone(took: Self.ms(1), at: Self.ms(110), behind: false, appended: 100)
        #expect(pacing.passesCalm == 1)
        #expect(pacing.passesBehind == FanoutPacing.stormAfter)
    }

    @Test func aPassThatOnlyFindsChangesItCouldSendIsNoOverrun() {
        var pacing = machine()
        _ = pacing.changed()
        _ = pass(&pacing, start: .zero, took: Self.ms(50), arrived: 64, behind: false)
        #expect(pacing.passesBehind == 0)
        _ = pacing.changed()
        _ = pass(&pacing, start: Self.ms(50), took: Self.ms(1), arrived: 65, behind: false)
        #expect(pacing.passesBehind == 1)
        _ = pacing.changed()
        _ = pass(&pacing, start: Self.ms(51), took: Self.ms(1), arrived: 0, behind: false)
        #expect(pacing.passesBehind == 0, "a pass that kept up before the storm forgives the ones behind")
    }

    @Test func aShareOfTheWholeLoopNeverRests() {
        var pacing = machine(share: 100)
        for index in 0..<(FanoutPacing.stormAfter + 2) {
            if index == 0 { _ = pacing.changed() } else { #expect(pacing.turnCame() == .startPass) }
            #expect(pass(&pacing, start: Self.ms(index), took: Self.ms(1), arrived: 100, behind: true) == .sliceNextTurn)
        }
        #expect(pacing.inStorm)
    }

    @Test func theShareIsBetweenOneAndAHundredPercent() {
        #expect(FanoutPacing(loopSharePercent: 0, batch: 64).loopSharePercent == 1)
        #expect(FanoutPacing(loopSharePercent: 250, batch: 64).loopSharePercent == 100)
    }
}

@Suite("Fan-out wake-ups: one per quiet spell, the rest wait for the batch interval")
struct FanoutWakeTests {
    @Test func theFirstChangeAfterAQuietSpellWakesTheLoopAndTheNextOnesDoNot() {
        let first = FanoutWake.idle.afterChange
        #expect(first?.next == .queued && first?.wakeLoop == true)
        #expect(FanoutWake.queued.afterChange == nil, "a wake-up is queued already")
        let cooling = FanoutWake.cooling.afterChange
        #expect(cooling?.next == .coolingWithChanges && cooling?.wakeLoop == false, "the interval's timer sends it")
        #expect(FanoutWake.coolingWithChanges.afterChange == nil)
    }

    @Test func aWakeUpCoolsOnlyWithABatchInterval() {
        #expect(FanoutWake.woken(batching: true) == .cooling)
        #expect(FanoutWake.woken(batching: false) == .idle)
    }

    @Test func anIntervalSendsWhatCameAndOneWithNothingStopsTheTimer() {
        let withChanges = FanoutWake.coolingWithChanges.afterInterval
        #expect(withChanges?.next == .cooling && withChanges?.end == .send)
        let quiet = FanoutWake.cooling.afterInterval
        #expect(quiet?.next == .idle && quiet?.end == .stopTimer)
        #expect(FanoutWake.idle.afterInterval == nil)
        #expect(FanoutWake.queued.afterInterval == nil)
    }
}
