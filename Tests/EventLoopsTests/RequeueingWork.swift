import EventLoops
import LockTracing
import Synchronization

/// Work that queues itself again on its loop each time it runs, until `end()`: a loop that always
/// has work queued. A test ends it itself once it has looked, so that a loop the work would keep
/// busy for good (the failure it checks for) does not hang the run.
final class RequeueingWork: Sendable {
    private let loop: EventLoop
    private let count = Mutex(0)
    private let going = Mutex(true)

    /// Starts it on `loop` (from any thread).
    init(on loop: EventLoop) {
        self.loop = loop
        loop.execute { [self] in step() }
    }

    /// How many times it ran so far.
    var runs: Int { count.withTracedLock { $0 } }

    /// It queues itself no more (what is queued already still runs once).
    func end() { going.withTracedLock { $0 = false } }

    private func step() {
        count.withTracedLock { $0 += 1 }
        if going.withTracedLock({ $0 }) { loop.execute { [self] in step() } }
    }
}
