import HTTPValues
import LockTracing
import Synchronization

import enum ChangeFeed.FeedDelivery
import protocol ChangeFeed.FeedEnding
import protocol ChangeFeed.FeedLoop
import protocol ChangeFeed.FeedScheduler
import protocol ChangeFeed.FeedSubscriber
import protocol ChangeFeed.FeedTimer
import protocol ChangeFeed.FeedTurnTimer

@testable import TodoServer

/// A loop run by the test: work queued from any thread runs when the test says (`run()`), timers
/// fire when the test advances the fake clock. A turn (`runOnce`) runs as `EventLoop`'s does: what
/// the turn's poll found ready (`arrive`, an armed turn timer), then the work queued with `execute`
/// before it (its wake-up is a timer of no delay); what is queued, arrives or is armed during the
/// turn waits for the next.
final class ManualFeedLoop: FeedLoop, FeedScheduler, @unchecked Sendable {
    private let queued = Mutex<[@Sendable () -> Void]>([])
    private(set) var elapsed: Duration = .zero
    var wallTime: Duration { elapsed }

    private var stopping: [@Sendable () -> Void] = []

    func whenStopping(_ work: @escaping @Sendable () -> Void) { stopping.append(work) }

    /// The loop stops: the `whenStopping` work runs (once).
    func stop() {
        let work = stopping
        stopping = []
        for item in work { item() }
    }

    /// Moves the fake clock on without firing timers: time spent inside work the loop runs.
    func spend(_ duration: Duration) {
        elapsed += duration
    }
    private var timers: [ManualTimer] = []

    final class ManualTimer: FeedTimer {
        let interval: Duration
        var due: Duration
        let fire: () -> Void
        var cancelled = false
        init(interval: Duration, due: Duration, fire: @escaping () -> Void) {
            self.interval = interval
            self.due = due
            self.fire = fire
        }
        func cancel() { cancelled = true }
    }

    func currentLoop() -> (any FeedLoop)? { self }

    private var sharedObjects: [ObjectIdentifier: AnyObject] = [:]

    var identity: UInt { UInt(bitPattern: ObjectIdentifier(self).hashValue) }

    func shared<Value: AnyObject>(_ make: () -> Value) -> Value {
        if let object = sharedObjects[ObjectIdentifier(Value.self)] as? Value { return object }
        let object = make()
        sharedObjects[ObjectIdentifier(Value.self)] = object
        return object
    }

    func execute(_ work: @escaping @Sendable () -> Void) {
        queued.withTracedLock { $0.append(work) }
    }

    /// Runs its work in the next turn (`runOnce`), as a real loop's turn timer after its poll.
    final class ManualTurnTimer: FeedTurnTimer, @unchecked Sendable {
        unowned let loop: ManualFeedLoop
        let fire: () -> Void
        var armed = false
        var cancelled = false
        init(loop: ManualFeedLoop, fire: @escaping () -> Void) {
            self.loop = loop
            self.fire = fire
        }
        func arm() {
            guard !armed, !cancelled else { return }
            armed = true
            loop.polled.append { [self] in
                guard armed, !cancelled else { return }
                armed = false
                fire()
            }
        }
        func cancel() { cancelled = true }
    }

    func turnTimer(_ fire: @escaping () -> Void) -> (any FeedTurnTimer)? {
        ManualTurnTimer(loop: self, fire: fire)
    }

    func repeating(every interval: Duration, _ fire: @escaping () -> Void) -> any FeedTimer {
        let timer = ManualTimer(interval: interval, due: elapsed + interval, fire: fire)
        timers.append(timer)
        return timer
    }

    /// What the next turn's poll finds ready, in order: sockets' work (`arrive`), armed turn timers.
    fileprivate var polled: [() -> Void] = []

    /// Work that a socket turning ready (a request) would bring: it runs after the loop's next poll.
    func arrive(_ work: @escaping () -> Void) {
        polled.append(work)
    }

    /// Turns `run` went through.
    private(set) var turns = 0

    /// One turn of a real loop: what the poll found ready (sockets first, then the timers that
    /// expired, `execute`'s wake-up among them). What turns ready or is queued meanwhile waits for
    /// the next turn. False when there was nothing to run.
    @discardableResult
    func runOnce() -> Bool {
        let ready = polled
        polled = []
        let queuedWork = queued.withTracedLock { queued in
            defer { queued = [] }
            return queued.map { item -> () -> Void in item }
        }
        let work = ready + queuedWork
        guard !work.isEmpty else { return false }
        turns += 1
        for item in work { item() }
        return true
    }

    /// Runs turns until nothing is queued or ready.
    func run() {
        while runOnce() {}
    }

    /// Moves the fake clock on, firing each timer as it comes due.
    func advance(by duration: Duration) {
        let end = elapsed + duration
        while let next = timers.filter({ !$0.cancelled && $0.due <= end }).min(by: { $0.due < $1.due }) {
            elapsed = next.due
            next.due += next.interval
            next.fire()
            run()
        }
        elapsed = max(elapsed, end)  // work the timers ran may have spent time past it
    }

    var liveTimers: Int { timers.filter { !$0.cancelled }.count }
}

/// A subscriber that records what it hears and answers what the test tells it to.
final class RecordingSubscriber: FeedSubscriber, FeedEnding {
    var items: [FeedItem] = []
    /// How many items each `flush()` ended (a batch).
    var batches: [Int] = []
    private var unflushed = 0
    var heartbeats = 0
    var ended = false
    /// Answered for the next items, one each; `.more` once used up.
    var answers: [FeedDelivery] = []
    /// Runs on each item (a test spends loop time in it).
    var onReceive: (() -> Void)?

    func receive(_ item: FeedItem) -> FeedDelivery {
        items.append(item)
        onReceive?()
        unflushed += 1
        return answers.isEmpty ? .more : answers.removeFirst()
    }

    func flush() {
        batches.append(unflushed)
        unflushed = 0
    }

    func heartbeat() -> FeedDelivery {
        heartbeats += 1
        return .more
    }

    func endStream() { ended = true }

    var positions: [String] {
        items.map { item in
            switch item {
            case .change(let position, _), .resync(let position), .expired(let position): position
            }
        }
    }
}

/// A stream that keeps what is written and holds it as pending until the test drains it; its
/// writes answer what the test tells it to (the connection's back-pressure, `answers`).
final class CapturingStream: ResponseStreamWriter {
    var written: [UInt8] = []
    var pendingBytes = 0
    var finished = false
    var aborted = false
    /// Answered for the next writes that are taken, one each; `.accepted` once used up.
    var answers: [HTTPStreamWrite] = []
    /// Bytes queued since the last flush or write (a write sends them along).
    var unflushedBytes = 0
    var flushes = 0

    func write(_ bytes: [UInt8]) -> HTTPStreamWrite {
        let answer = queue(bytes)
        flush()
        return answer
    }

    func queue(_ bytes: [UInt8]) -> HTTPStreamWrite {
        guard !finished, !aborted else { return .closed }
        written += bytes
        pendingBytes += bytes.count
        unflushedBytes += bytes.count
        return answers.isEmpty ? .accepted : answers.removeFirst()
    }

    func flush() {
        flushes += 1
        unflushedBytes = 0
    }

    func finish() { finished = true }
    func abort() { aborted = true }

    var text: String { String(decoding: written, as: UTF8.self) }
}
