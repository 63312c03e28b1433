import EventLoops
import Glibc
import LockTracing
import Synchronization

/// Where a subscription's work runs: its loop (for wake-ups from the threads that change the
/// store) and that loop's timers (heartbeats). Injected, so that tests drive the feed by hand.
public protocol FeedScheduler: Sendable {
    /// The calling thread's loop; nil off every loop.
    func currentLoop() -> (any FeedLoop)?
}

/// One loop, as a subscription uses it.
public protocol FeedLoop: Sendable {
    /// Runs `work` on the loop's thread (callable from any thread).
    func execute(_ work: @escaping @Sendable () -> Void)
    /// Calls `fire` on the loop's thread every `interval` until the answered timer is cancelled
    /// (create and cancel it on the loop's thread).
    func repeating(every interval: Duration, _ fire: @escaping () -> Void) -> any FeedTimer
    /// A turn timer: each `arm()` calls `fire` once, in a later turn of the loop, after the loop
    /// has polled its sockets, so that the requests that came meanwhile run first (as work queued
    /// with `execute` does since 2026-12-07; a turn timer makes no closure and queues nothing).
    /// Create, arm and cancel it on the loop's thread. Nil when the loop cannot make one.
    func turnTimer(_ fire: @escaping () -> Void) -> (any FeedTurnTimer)?
    /// The object of `Value`'s type kept for this loop, made by `make` on first use: what the
    /// loop's subscriptions share (used on the loop's thread only).
    func shared<Value: AnyObject>(_ make: () -> Value) -> Value
    /// Names the loop among the server's loops.
    var identity: UInt { get }
    /// Runs `work` on the loop's thread when the loop stops (while its timers can still be freed).
    func whenStopping(_ work: @escaping @Sendable () -> Void)
    /// A monotonic clock (a fake one in tests): how long the loop's requests waited for a slice
    /// of the feed, preempted or not, which is what the feed's share of the loop is counted in.
    var wallTime: Duration { get }
}

public protocol FeedTimer: AnyObject {
    func cancel()
}

/// A `FeedLoop.turnTimer`.
public protocol FeedTurnTimer: FeedTimer {
    /// Calls the timer's work in a later turn of the loop (once, however often armed before then).
    func arm()
}

/// The server's loops (`EventLoop.current`) and their libevent timers.
public struct EventLoopFeedScheduler: FeedScheduler {
    private let sharedObjects = SharedObjects()

    public init() {}

    public func currentLoop() -> (any FeedLoop)? {
        EventLoop.current.map { ServerFeedLoop(loop: $0, sharedObjects: sharedObjects) }
    }

    /// Each loop's shared objects, by loop and type.
    private final class SharedObjects: @unchecked Sendable {
        struct Key: Hashable {
            let loop: UInt
            let type: ObjectIdentifier
        }
        // Each object is used on its own loop's thread only; the lock guards the table.
        private let objects = Mutex<[Key: AnyObject]>([:])

        func object<Value: AnyObject>(loop: UInt, _ make: () -> Value) -> Value {
            objects.withTracedLock { objects in
                let key = Key(loop: loop, type: ObjectIdentifier(Value.self))
                if let object = objects[key] as? Value { return object }
                let object = make()
                objects[key] = object
                return object
            }
        }
    }

    private struct ServerFeedLoop: FeedLoop {
        let loop: EventLoop
        let sharedObjects: SharedObjects

        func shared<Value: AnyObject>(_ make: () -> Value) -> Value {
            sharedObjects.object(loop: loop.identity, make)
        }

        var identity: UInt { loop.identity }

        var wallTime: Duration {
            var time = timespec()
            clock_gettime(CLOCK_MONOTONIC, &time)
            return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
        }

        func execute(_ work: @escaping @Sendable () -> Void) { loop.execute(work) }

        func whenStopping(_ work: @escaping @Sendable () -> Void) { _ = loop.whenStopping(work) }

        func repeating(every interval: Duration, _ fire: @escaping () -> Void) -> any FeedTimer {
            let timer = LoopTimer(loop: loop, repeating: true, onFire: fire)
            timer?.schedule(after: interval)
            return Timer(timer: timer)
        }

        /// A libevent timer of no delay: libevent runs the callbacks made active in a turn until
        /// none is left, and an expired timer is made active only after the poll (`execute`'s
        /// wake-up is such a timer too).
        func turnTimer(_ fire: @escaping () -> Void) -> (any FeedTurnTimer)? {
            LoopTimer(loop: loop, onFire: fire).map { Timer(timer: $0) }
        }
    }

    private final class Timer: FeedTurnTimer {
        let timer: LoopTimer?
        init(timer: LoopTimer?) { self.timer = timer }
        func cancel() { timer?.cancel() }
        func arm() {
            guard let timer, !timer.isScheduled else { return }
            timer.schedule(after: .zero)
        }
    }
}
