import Prometheus
import Testing

import struct ChangeFeed.ChangePosition
import class ChangeFeed.FeedHub

@testable import struct ChangeFeed.FanoutPacing
@testable import class ChangeFeed.FeedLoopFanouts
@testable import TodoData
@testable import TodoServer

@Suite("Feed interactor: where a subscription starts, what it hears, heartbeats, limits")
final class FeedInteractorTests {
    let loop = ManualFeedLoop()
    let log = ChangeLog(tag: "mt", capacity: 5, start: ChangePosition(major: 1, minor: 0))
    let hub: FeedHub
    let interactor: FeedInteractor

    init() {
        hub = FeedHub(maxSubscribers: 2, factory: PrometheusMetricsFactory(registry: PrometheusCollectorRegistry()))
        interactor = FeedInteractor(
            log: log, scheduler: loop, hub: hub, settings: FeedSettings(heartbeat: .seconds(15), loopSharePercent: 100))
    }

    /// Ends what a test left open, as a server's stop does: the hub holds each live subscription
    /// (and a subscription its hub) until it ends.
    deinit {
        hub.endAll()
        loop.run()
    }

    private static func todo(_ id: String, revision: UInt64 = 1) -> Todo {
        Todo(
            id: id, title: "t", completed: false, order: nil, dueDate: nil, createdAt: Timestamp(millisecondsSinceEpoch: 1_000),
            updatedAt: Timestamp(millisecondsSinceEpoch: 2_000), revision: revision)
    }

    @Test func withoutAPositionItStartsAtTheCurrentOneAndHearsEachLaterChangeOnItsLoop() throws {
        log.appendNext(.created(Self.todo("old")))
        let subscriber = RecordingSubscriber()
        let subscription = try #require(interactor.subscribe(FeedRequest(), subscriber: subscriber))
        subscription.start()
        #expect(subscriber.items.isEmpty)
        log.appendNext(.created(Self.todo("a")))
        log.appendNext(.deleted(id: "a"))
        #expect(subscriber.items.isEmpty, "delivered on the subscriber's loop, not on the writer's thread")
        loop.run()
        #expect(
            subscriber.items == [
                .change(position: "mt.1.2", .created(Self.todo("a"))),
                .change(position: "mt.1.3", .deleted(id: "a")),
            ])
        #expect(hub.subscriberCount == 1)
        subscription.cancel()
        #expect(hub.subscriberCount == 0)
        log.appendNext(.cleared)
        loop.run()
        #expect(subscriber.items.count == 2)
    }

    @Test func changesAfterABatchWaitOneIntervalAndGoOutTogetherAQuietSpellSendsAtOnce() throws {
        let subscriber = RecordingSubscriber()
        let subscription = try #require(interactor.subscribe(FeedRequest(), subscriber: subscriber))
        subscription.start()
        #expect(subscriber.batches == [0])
        #expect(loop.liveTimers == 1, "the heartbeat")
        for id in ["a", "b", "c"] { log.appendNext(.created(Self.todo(id))) }
        loop.run()
        #expect(subscriber.batches == [0, 3], "three changes before the loop ran: one batch, sent at once")
        #expect(loop.liveTimers == 2, "the heartbeat and the interval after a batch")
        log.appendNext(.deleted(id: "a"))
        log.appendNext(.deleted(id: "b"))
        loop.run()
        #expect(subscriber.batches == [0, 3], "within the interval: waits")
        loop.advance(by: .milliseconds(9))
        #expect(subscriber.batches == [0, 3])
        loop.advance(by: .milliseconds(1))
        #expect(subscriber.batches == [0, 3, 2])
        loop.advance(by: .milliseconds(10))
        #expect(loop.liveTimers == 1, "an interval without changes ends the waiting")
        log.appendNext(.deleted(id: "c"))
        loop.run()
        #expect(subscriber.batches == [0, 3, 2, 1], "after a quiet spell: at once")
        #expect(subscriber.positions == ["mt.1.1", "mt.1.2", "mt.1.3", "mt.1.4", "mt.1.5", "mt.1.6"])
        subscription.cancel()
        loop.advance(by: .milliseconds(10))
        #expect(loop.liveTimers == 0)
    }

    @Test func subscriptionsOnOneLoopShareOneWakeUpAndOneIntervalAndEachHearsEveryChange() throws {
        let subscribers = [RecordingSubscriber(), RecordingSubscriber()]
        let subscriptions = try subscribers.map { try #require(interactor.subscribe(FeedRequest(), subscriber: $0)) }
        for subscription in subscriptions { subscription.start() }
        #expect(log.listenerCount == 1, "one listener for the loop, not one per subscriber")
        log.appendNext(.created(Self.todo("a")))
        loop.run()
        log.appendNext(.created(Self.todo("b")))
        loop.run()
        #expect(loop.liveTimers == 3, "two heartbeats and the loop's one interval")
        loop.advance(by: .milliseconds(10))
        #expect(subscribers.map(\.batches) == [[0, 1, 1], [0, 1, 1]])
        subscriptions[0].cancel()
        log.appendNext(.deleted(id: "a"))
        loop.advance(by: .milliseconds(10))
        #expect(subscribers.map(\.items.count) == [2, 3])
        subscriptions[1].cancel()
    }

    @Test func aPassOverManySubscriptionsGoesASliceAtATimeAndTheLoopsOtherWorkRunsBetween() throws {
        let hub = FeedHub(maxSubscribers: 200, factory: PrometheusMetricsFactory(registry: PrometheusCollectorRegistry()))
        let interactor = FeedInteractor(
            log: log, scheduler: loop, hub: hub, settings: FeedSettings(heartbeat: .seconds(15), loopSharePercent: 100))
        let count = FanoutPacing.slice * 2 + 1
        var order: [String] = []
        let subscribers = (0..<count).map { _ in RecordingSubscriber() }
        for (index, subscriber) in subscribers.enumerated() {
            subscriber.onReceive = { order.append("subscriber \(index)") }
        }
        let subscriptions = try subscribers.map { try #require(interactor.subscribe(FeedRequest(), subscriber: $0)) }
        for subscription in subscriptions { subscription.start() }
        log.appendNext(.created(Self.todo("a")))
        // A request that came while the first slice ran runs before the second slice (the slice
        // waits for the loop's next turn, after its poll).
        subscribers[0].onReceive = {
            order.append("subscriber 0")
            self.loop.arrive { order.append("request") }
        }
        loop.run()
        #expect(subscribers.allSatisfy { $0.batches == [0, 1] }, "every subscription hears the change once")
        #expect(order.count == count + 1)
        #expect(order.firstIndex(of: "request") == FanoutPacing.slice, "\(order.prefix(FanoutPacing.slice + 2))")
        #expect(order.filter { $0 != "request" } == (0..<count).map { "subscriber \($0)" }, "in the order they started")
        #expect(loop.turns == 3, "three slices, each in its own turn: \(loop.turns)")
        for subscription in subscriptions { subscription.cancel() }
    }

    @Test func passesReachTheSubscriptionsInTheOrderTheyStartedAlsoAfterMostEnded() throws {
        let hub = FeedHub(maxSubscribers: 400, factory: PrometheusMetricsFactory(registry: PrometheusCollectorRegistry()))
        let interactor = FeedInteractor(
            log: log, scheduler: loop, hub: hub,
            settings: FeedSettings(heartbeat: .seconds(15), batchInterval: .zero, loopSharePercent: 100))
        var order: [Int] = []
        let subscribers = (0..<300).map { _ in RecordingSubscriber() }
        for (index, subscriber) in subscribers.enumerated() { subscriber.onReceive = { order.append(index) } }
        let subscriptions = try subscribers.map { try #require(interactor.subscribe(FeedRequest(), subscriber: $0)) }
        for subscription in subscriptions { subscription.start() }
        // Every subscription but each seventh ends (the fan-out closes ranks on the way), then
        // more start.
        for (index, subscription) in subscriptions.enumerated() where index % 7 != 0 { subscription.cancel() }
        let later = (0..<20).map { _ in RecordingSubscriber() }
        for (index, subscriber) in later.enumerated() { subscriber.onReceive = { order.append(1_000 + index) } }
        let laterSubscriptions = try later.map { try #require(interactor.subscribe(FeedRequest(), subscriber: $0)) }
        for subscription in laterSubscriptions { subscription.start() }
        loop.run()
        log.appendNext(.created(Self.todo("a")))
        loop.run()
        #expect(order == Array(stride(from: 0, to: 300, by: 7)) + (1_000..<1_020))
        for subscription in subscriptions + laterSubscriptions { subscription.cancel() }
    }

    @Test func aStoppedLoopsFanOutIsNotHandedToALaterLoopAtTheSameAddress() {
        let fanouts = FeedLoopFanouts()
        let first = fanouts.fanout(of: log, on: loop, batchInterval: .milliseconds(10), loopSharePercent: 100)
        #expect(fanouts.fanout(of: log, on: loop, batchInterval: .milliseconds(10), loopSharePercent: 100) === first, "one per loop")
        loop.stop()
        // The same identity again (as a new loop whose base has the freed one's address).
        let second = fanouts.fanout(of: log, on: loop, batchInterval: .milliseconds(10), loopSharePercent: 100)
        #expect(second !== first)
        #expect(fanouts.fanout(of: log, on: loop, batchInterval: .milliseconds(10), loopSharePercent: 100) === second)
    }

    @Test func aSlowPassThatLeavesNobodyBehindIsNoStormAndNeverRests() throws {
        let hub = FeedHub(maxSubscribers: 200, factory: PrometheusMetricsFactory(registry: PrometheusCollectorRegistry()))
        let interactor = FeedInteractor(
            log: log, scheduler: loop, hub: hub, settings: FeedSettings(heartbeat: .seconds(15), batchInterval: .zero, loopSharePercent: 25)
        )
        let count = FanoutPacing.slice * 2 + 1
        let subscribers = (0..<count).map { _ in RecordingSubscriber() }
        let subscriptions = try subscribers.map { try #require(interactor.subscribe(FeedRequest(), subscriber: $0)) }
        for subscription in subscriptions { subscription.start() }
        // Each subscriber takes 50 µs of the loop: a slice of 64 takes 3.2 ms, yet each keeps up.
        for subscriber in subscribers { subscriber.onReceive = { self.loop.spend(.microseconds(50)) } }
        for name in ["a", "b", "c", "d"] {
            log.appendNext(.created(Self.todo(name)))
            loop.run()
        }
        #expect(subscribers.allSatisfy { $0.positions == ["mt.1.1", "mt.1.2", "mt.1.3", "mt.1.4"] }, "no rest")
        for subscription in subscriptions { subscription.cancel() }
    }

    /// A feed retaining 1,000 changes, each change sent at once, taking 25 % of the loop in a storm.
    private func stormFeed() -> (ChangeLog, FeedHub, FeedInteractor) {
        let log = ChangeLog(tag: "mt", capacity: 1_000, start: ChangePosition(major: 1, minor: 0))
        let hub = FeedHub(maxSubscribers: 200, factory: PrometheusMetricsFactory(registry: PrometheusCollectorRegistry()))
        let interactor = FeedInteractor(
            log: log, scheduler: loop, hub: hub, settings: FeedSettings(heartbeat: .seconds(15), batchInterval: .zero, loopSharePercent: 25)
        )
        return (log, hub, interactor)
    }

    @Test func aSubscriberFarBehindIsSentABatchAPassAndCatchingUpIsNoStorm() throws {
        let (log, hub, interactor) = stormFeed()
        defer {
            hub.endAll()
            loop.run()
        }
        let behind = RecordingSubscriber()
        let current = RecordingSubscriber()
        let subscriptions = try [behind, current].map { try #require(interactor.subscribe(FeedRequest(), subscriber: $0)) }
        for subscription in subscriptions { subscription.start() }
        let batch = FeedSubscription.batch
        let changes = batch * (FanoutPacing.stormAfter + 2) + 1
        for index in 0..<changes { log.appendNext(.created(Self.todo("t\(index)"))) }
        // Both are a whole run behind: each pass sends each one batch, one write each.
        loop.runOnce()
        #expect(behind.items.count == batch && current.items.count == batch)
        #expect(behind.batches.filter { $0 > 0 } == [batch], "one write")
        loop.runOnce()
        #expect(behind.items.count == batch * 2, "the next pass follows in the loop's next turn")
        // Long passes (2 ms of the loop for the one behind) that leave it behind, more than
        // `stormAfter` in a row, while no change comes: a catch-up, not a storm. No pass rests.
        behind.onReceive = { self.loop.spend(.microseconds(2_000 / batch)) }
        loop.run()
        #expect(behind.items.count == changes && current.items.count == changes, "all sent without the clock's timers")
        let expected = (0..<changes).map { "mt.1.\($0 + 1)" }
        #expect(behind.positions == expected && current.positions == expected, "every change once, in order")
    }

    @Test func changesComingFasterThanAPassSendsMakeAStormInWhichEachSliceRestsForItsShare() throws {
        try withStormSubscribers { log, subscribers in
            let count = subscribers.count
            // 0.5 µs an event: a batch of 64 takes 32 µs, a slice of 64 subscribers 2.048 ms. The first
            // subscriber writes too: two changes for each it hears, up to `total` (the log retains
            // 1,000), so that from some pass on more changes come during each pass than it sends.
            let total = 900
            var written = 1
            subscribers[0].onReceive = {
                self.loop.spend(.nanoseconds(500))
                for _ in 0..<2 where written < total {
                    log.appendNext(.created(Self.todo("t\(written)")))
                    written += 1
                }
            }
            log.appendNext(.created(Self.todo("t0")))
            // Passes follow each other at once until `stormAfter` in a row could not keep up: then the
            // last slice of the last pass (one subscriber: 64 events, 32 µs) rests three times that
            // (25 %) before the next pass.
            loop.run()
            let counts = { subscribers.map(\.items.count) }
            let atStorm = counts()
            #expect(atStorm.allSatisfy { $0 < written }, "behind when the storm starts: \(atStorm[0]) of \(written)")
            #expect(atStorm.allSatisfy { $0 == atStorm[0] }, "each pass reached every subscriber")
            loop.advance(by: .microseconds(95))
            #expect(counts() == atStorm, "no pass while the feed rests")
            loop.advance(by: .microseconds(1))
            // The next pass's first slice: 64 subscribers, a batch each (2.048 ms), then 6.144 ms of rest.
            let afterSlice = counts()
            #expect(afterSlice.filter { $0 == atStorm[0] + FeedSubscription.batch }.count == FanoutPacing.slice)
            loop.advance(by: .microseconds(6_143))
            #expect(counts() == afterSlice)
            loop.advance(by: .microseconds(1))
            #expect(counts().filter { $0 == atStorm[0] + FeedSubscription.batch }.count == FanoutPacing.slice * 2)
            // Once the writer stops, the subscribers catch up.
            loop.advance(by: .seconds(2))
            loop.run()
            #expect(written == total)
            let expected = (0..<total).map { "mt.1.\($0 + 1)" }
            #expect(subscribers.allSatisfy { $0.positions == expected }, "every change once, in order")
        }
    }

    @Test func aStormEndsOnlyOnceAsManyPassesInARowKeptUpAsStartedIt() throws {
        try withStormSubscribers { log, subscribers in
            let count = subscribers.count
            // As above: 0.5 µs an event; the first subscriber writes two changes for each it hears.
            var writing = true
            var written = 1
            subscribers[0].onReceive = {
                self.loop.spend(.nanoseconds(500))
                for _ in 0..<2 where writing && written < 600 {
                    log.appendNext(.created(Self.todo("t\(written)")))
                    written += 1
                }
            }
            log.appendNext(.created(Self.todo("t0")))
            loop.run()
            #expect(subscribers.allSatisfy { $0.items.count < written }, "in a storm")
            #expect(loop.liveTimers == count + 1, "a rest waits (besides each subscription's heartbeat)")
            // The writer stops, and six batches more come at once, while the feed rests: the passes
            // keep up from now on (nothing comes during them), yet the storm's rests go on for
            // `stormAfter` of them. A paced pass (slices of 64, 64 and 1 subscribers, a batch each,
            // each followed by three times its time) takes 4 × 4.128 ms = 16.512 ms; without the rule
            // the passes after the first that kept up would go at once.
            writing = false
            let batch = FeedSubscription.batch
            for index in written..<(written + batch * 6) { log.appendNext(.created(Self.todo("t\(index)"))) }
            let total = written + batch * 6
            let start = loop.elapsed
            while !subscribers.allSatisfy({ $0.items.count == total }), loop.elapsed - start < .seconds(1) {
                loop.advance(by: .microseconds(100))
            }
            let took = loop.elapsed - start
            // Ten passes: the first `stormAfter` paced, the rest at once (a batch each to 129
            // subscribers: 4.128 ms). With the storm ended by the first pass that kept up: 53.664 ms;
            // by the second: 66.048 ms.
            let unpaced = Duration.microseconds(4_128)
            #expect(took == unpaced * 4 * FanoutPacing.stormAfter + unpaced * (10 - FanoutPacing.stormAfter), "\(took)")
            let expected = (0..<total).map { "mt.1.\($0 + 1)" }
            #expect(subscribers.allSatisfy { $0.positions == expected }, "every change once, in order")
        }
    }

    /// The storm tests' feed (`stormFeed`) with `FanoutPacing.slice * 2 + 1` started subscriptions
    /// (`subscribe`), handed to `body`; every stream ends when it returns.
    private func withStormSubscribers(_ body: (ChangeLog, [RecordingSubscriber]) throws -> Void) throws {
        let (log, hub, interactor) = stormFeed()
        defer {
            hub.endAll()
            loop.run()
        }
        let (subscribers, subscriptions) = try subscribe(FanoutPacing.slice * 2 + 1, interactor)
        try withExtendedLifetime(subscriptions) { try body(log, subscribers) }
    }

    /// Started subscriptions for the storm tests, each subscriber taking 0.5 µs of the loop an event
    /// (the caller holds the subscriptions for the test's length).
    private func subscribe(_ count: Int, _ interactor: FeedInteractor) throws -> ([RecordingSubscriber], [FeedSubscription]) {
        let subscribers = (0..<count).map { _ in RecordingSubscriber() }
        let subscriptions = try subscribers.map { try #require(interactor.subscribe(FeedRequest(), subscriber: $0)) }
        for subscription in subscriptions { subscription.start() }
        for subscriber in subscribers { subscriber.onReceive = { self.loop.spend(.nanoseconds(500)) } }
        return (subscribers, subscriptions)
    }

    @Test func aStormsRestThatEndsWithNothingLeftToSendEndsTheStorm() throws {
        try withStormSubscribers { log, subscribers in
            // The first subscriber writes 65 changes in each pass (one more than a pass sends) until
            // the storm: the subscribers are then only a batch or two behind.
            var writing = true
            var written = 1
            var lastTurn = -1
            subscribers[0].onReceive = {
                self.loop.spend(.nanoseconds(500))
                guard writing, self.loop.turns != lastTurn else { return }
                lastTurn = self.loop.turns
                for _ in 0..<(FeedSubscription.batch + 1) {
                    log.appendNext(.created(Self.todo("t\(written)")))
                    written += 1
                }
            }
            log.appendNext(.created(Self.todo("t0")))
            loop.run()
            writing = false
            #expect(loop.liveTimers == subscribers.count + 1, "a storm: a rest waits")
            #expect(subscribers.allSatisfy { written - $0.items.count <= FeedSubscription.batch * 2 }, "\(written)")
            // Fewer than `stormAfter` passes catch them up; the rest after the last ends with nothing
            // to send, and the storm with it.
            loop.advance(by: .seconds(1))
            #expect(subscribers.allSatisfy { $0.items.count == written })
            #expect(loop.liveTimers == subscribers.count, "no rest waits")
            log.appendNext(.created(Self.todo("after")))
            loop.run()
            #expect(subscribers.allSatisfy { $0.items.count == written + 1 }, "every slice at once: no storm left over")
        }
    }

    @Test func anIntervalThatEndsDuringAPassGetsAPassOfItsOwn() throws {
        let hub = FeedHub(maxSubscribers: 200, factory: PrometheusMetricsFactory(registry: PrometheusCollectorRegistry()))
        let interactor = FeedInteractor(
            log: log, scheduler: loop, hub: hub, settings: FeedSettings(heartbeat: .seconds(15), loopSharePercent: 100))
        let subscribers = (0...FanoutPacing.slice).map { _ in RecordingSubscriber() }
        let subscriptions = try subscribers.map { try #require(interactor.subscribe(FeedRequest(), subscriber: $0)) }
        for subscription in subscriptions { subscription.start() }
        log.appendNext(.created(Self.todo("a")))
        // The first subscriber reached hears "a"; a change comes right after it was sent "a".
        let first = try #require(subscribers.first { _ in true })
        var appended = false
        for subscriber in subscribers {
            subscriber.onReceive = {
                guard !appended else { return }
                appended = true
                self.log.appendNext(.created(Self.todo("b")))
            }
        }
        loop.runOnce()  // the first slice
        #expect(appended)
        // The interval ends while the second slice is still to run.
        loop.advance(by: .milliseconds(10))
        loop.run()
        #expect(subscribers.allSatisfy { $0.items.count == 2 }, "\(subscribers.map(\.items.count)) (first: \(first.items.count))")
        for subscription in subscriptions { subscription.cancel() }
    }

    @Test func withoutAnIntervalEachWakeSendsAtOnce() throws {
        let interactor = FeedInteractor(
            log: log, scheduler: loop, hub: hub,
            settings: FeedSettings(heartbeat: .seconds(15), batchInterval: .zero, loopSharePercent: 100))
        let subscriber = RecordingSubscriber()
        let subscription = try #require(interactor.subscribe(FeedRequest(), subscriber: subscriber))
        subscription.start()
        for id in ["a", "b"] {
            log.appendNext(.created(Self.todo(id)))
            loop.run()
        }
        #expect(subscriber.batches == [0, 1, 1])
        #expect(loop.liveTimers == 1, "the heartbeat only")
        subscription.cancel()
    }

    @Test func aKnownPositionReplaysExactlyWhatCameAfterItThenGoesLive() throws {
        for id in ["a", "b", "c"] { log.appendNext(.created(Self.todo(id))) }
        let subscriber = RecordingSubscriber()
        let subscription = try #require(interactor.subscribe(FeedRequest(lastEventID: "mt.1.1"), subscriber: subscriber))
        subscription.start()
        #expect(subscriber.positions == ["mt.1.2", "mt.1.3"])
        log.appendNext(.updated(Self.todo("a", revision: 2)))
        loop.run()
        #expect(subscriber.positions == ["mt.1.2", "mt.1.3", "mt.1.4"])
        #expect(subscriber.items.last == .change(position: "mt.1.4", .updated(Self.todo("a", revision: 2))))
    }

    @Test(
        "an unknown or too old position gets one resync, then the changes after the current one",
        arguments: [
            "nonsense", "m0.1.1", "mt.1.0",
            // Forms the memory log never hands out (issue 35): a snapshot, a sign, a leading zero.
            "mt.1.8~2.3.", "mt.1.8~1.5000.2_3", "mt.+1.8", "mt.01.8", "mt.1.08",
        ])
    func unknownOrTooOld(position: String) throws {
        for index in 1...8 { log.appendNext(.deleted(id: "\(index)")) }  // the window holds 4...8
        let subscriber = RecordingSubscriber()
        let subscription = try #require(interactor.subscribe(FeedRequest(lastEventID: position), subscriber: subscriber))
        subscription.start()
        #expect(subscriber.items == [.resync(position: "mt.1.8")])
        log.appendNext(.cleared)
        loop.run()
        #expect(subscriber.items == [.resync(position: "mt.1.8"), .change(position: "mt.1.9", .cleared)])
    }

    /// A cursor that claims to have seen every retained change (a PostgreSQL listing's snapshot)
    /// costs the log each change once: the subscription moves past what it skipped, however many
    /// passes follow (issue 35: every write rescanned every retained change against the snapshot,
    /// on the loops and under the log's lock).
    @Test func aSnapshotThatSawEveryRetainedChangeHasEachLookedAtOnceThenHearsWhatItDidNotSee() throws {
        let log = ChangeLog(
            tag: "p", capacity: 1_000, start: ChangePosition(major: 1_000, minor: 0), aheadAllowance: 1 << 24, handsOutSnapshots: true)
        let hub = FeedHub(maxSubscribers: 2, factory: PrometheusMetricsFactory(registry: PrometheusCollectorRegistry()))
        let interactor = FeedInteractor(
            log: log, scheduler: loop, hub: hub,
            settings: FeedSettings(heartbeat: .seconds(15), batchInterval: .zero, loopSharePercent: 100))
        log.append((1...500).map { StoreChange(position: ChangePosition(major: 1_000 + UInt64($0), minor: UInt64($0)), kind: .cleared) })
        let subscriber = RecordingSubscriber()
        // Seen: every transaction below 2,000.
        let request = FeedRequest(lastEventID: "p.1000.0~1000.2000.")
        let subscription = try #require(interactor.subscribe(request, subscriber: subscriber))
        subscription.start()
        #expect(log.examinedCount == 500)
        for index in 501...600 {
            log.append([StoreChange(position: ChangePosition(major: 1_000 + UInt64(index), minor: UInt64(index)), kind: .cleared)])
            loop.run()
        }
        #expect(subscriber.items.isEmpty, "it saw them all")
        #expect(log.examinedCount == 600, "each change once")
        log.append([StoreChange(position: ChangePosition(major: 2_000, minor: 601), kind: .deleted(id: "a"))])
        loop.run()
        #expect(subscriber.items == [.change(position: "p.2000.601", .deleted(id: "a"))])
        #expect(log.examinedCount == 601)
        subscription.cancel()
    }

    @Test func aPausedSubscriberGetsNothingUntilResumedThenEverythingInOrder() throws {
        let subscriber = RecordingSubscriber()
        subscriber.answers = [.paused]
        let subscription = try #require(interactor.subscribe(FeedRequest(), subscriber: subscriber))
        subscription.start()
        log.appendNext(.deleted(id: "1"))
        log.appendNext(.deleted(id: "2"))
        loop.run()
        #expect(subscriber.positions == ["mt.1.1"])
        log.appendNext(.deleted(id: "3"))
        loop.run()
        #expect(subscriber.positions == ["mt.1.1"])
        subscription.resume()
        #expect(subscriber.positions == ["mt.1.1"], "what waits goes out in the loop's next pass")
        loop.run()
        loop.advance(by: FeedSettings.defaults.batchInterval)
        loop.run()
        #expect(subscriber.positions == ["mt.1.1", "mt.1.2", "mt.1.3"])
    }

    @Test func heartbeatsComeEveryIntervalOnTheLoopsClockAndStopWithTheSubscription() throws {
        let subscriber = RecordingSubscriber()
        let subscription = try #require(interactor.subscribe(FeedRequest(), subscriber: subscriber))
        subscription.start()
        loop.advance(by: .seconds(14))
        #expect(subscriber.heartbeats == 0)
        loop.advance(by: .seconds(1))
        #expect(subscriber.heartbeats == 1)
        loop.advance(by: .seconds(45))
        #expect(subscriber.heartbeats == 4)
        subscription.cancel()
        #expect(loop.liveTimers == 0)
        loop.advance(by: .seconds(60))
        #expect(subscriber.heartbeats == 4)
    }

    @Test func theLimitRefusesMoreSubscribersAndAStopEndsEveryStreamAndAdmitsNoMore() throws {
        let first = RecordingSubscriber(), second = RecordingSubscriber()
        try #require(interactor.subscribe(FeedRequest(), subscriber: first)).start()
        try #require(interactor.subscribe(FeedRequest(), subscriber: second)).start()
        #expect(interactor.subscribe(FeedRequest(), subscriber: RecordingSubscriber()) == nil)
        hub.endAll()
        #expect(!first.ended)
        loop.run()
        #expect(first.ended && second.ended)
        #expect(hub.subscriberCount == 0)
        #expect(interactor.subscribe(FeedRequest(), subscriber: RecordingSubscriber()) == nil)
    }

    @Test func aSubscriberCutOffStopsHearingAndIsCounted() throws {
        let registry = PrometheusCollectorRegistry()
        let hub = FeedHub(maxSubscribers: 5, factory: PrometheusMetricsFactory(registry: registry))
        let interactor = FeedInteractor(
            log: log, scheduler: loop, hub: hub, settings: FeedSettings(heartbeat: .seconds(15), loopSharePercent: 100))
        let subscriber = RecordingSubscriber()
        subscriber.answers = [.more, .cutOff]
        try #require(interactor.subscribe(FeedRequest(), subscriber: subscriber)).start()
        for index in 1...4 { log.appendNext(.deleted(id: "\(index)")) }
        loop.run()
        #expect(subscriber.positions == ["mt.1.1", "mt.1.2"])
        #expect(hub.subscriberCount == 0)
        let text = String(decoding: registry.emitToBuffer(), as: UTF8.self)
        #expect(text.contains("feed_subscribers_cut_off_total 1"))
        #expect(text.contains("feed_events_sent_total 1"))
        #expect(text.contains("feed_subscribers 0"))
    }
}
