import EventLoops

/// Where a subscription's work runs: its loop (for wake-ups from the threads that change the
/// store) and that loop's timers (heartbeats). Injected, so that tests drive the feed by hand.
public protocol FeedScheduler: Sendable {
    /// The calling thread's loop; nil off the server's loops.
    func currentLoop() -> (any FeedLoop)?
}

/// One loop, as a subscription uses it.
public protocol FeedLoop: Sendable {
    /// Runs `work` on the loop's thread (callable from any thread).
    func execute(_ work: @escaping @Sendable () -> Void)
    /// Calls `fire` on the loop's thread every `interval` until the answered timer is cancelled
    /// (create and cancel it on the loop's thread).
    func repeating(every interval: Duration, _ fire: @escaping () -> Void) -> any FeedTimer
}

public protocol FeedTimer: AnyObject {
    func cancel()
}

/// The server's loops (`LoopExecutor.current`) and their libevent timers.
public struct EventLoopFeedScheduler: FeedScheduler {
    public init() {}

    public func currentLoop() -> (any FeedLoop)? {
        LoopExecutor.current.map { ServerFeedLoop(handle: $0.handle) }
    }

    private struct ServerFeedLoop: FeedLoop {
        let handle: LoopHandle

        func execute(_ work: @escaping @Sendable () -> Void) { handle.execute(work) }

        func repeating(every interval: Duration, _ fire: @escaping () -> Void) -> any FeedTimer {
            let timer = LoopTimer(loop: handle, repeating: true, onFire: fire)
            timer?.schedule(after: interval)
            return Timer(timer: timer)
        }
    }

    private final class Timer: FeedTimer {
        let timer: LoopTimer?
        init(timer: LoopTimer?) { self.timer = timer }
        func cancel() { timer?.cancel() }
    }
}
