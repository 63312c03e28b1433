import Synchronization

/// Where the wake-ups of one loop's fan-out stand: shared by the threads that append changes and
/// the loop, so the fan-out keeps it in an atomic; its transitions are pure. After a batch went out
/// the changes that come within the batch interval wait for its timer, and only the first change
/// after a quiet spell wakes the loop.
enum FanoutWake: UInt8, AtomicRepresentable, Sendable {
    /// No wake-up queued and no batch just sent: the next change is sent at once.
    case idle
    /// A wake-up is queued on the loop.
    case queued
    /// A batch went out less than an interval ago; the interval's timer runs.
    case cooling
    /// As `cooling`, and a change came since: the timer sends it.
    case coolingWithChanges

    /// A change came (any thread): the state after it, and whether to queue a wake-up on the loop;
    /// nil when nothing changes (a wake-up is queued, or the interval's timer will send it).
    var afterChange: (next: FanoutWake, wakeLoop: Bool)? {
        switch self {
        case .queued, .coolingWithChanges: nil
        case .cooling: (.coolingWithChanges, false)
        case .idle: (.queued, true)
        }
    }

    /// The queued wake-up runs on the loop and sends what waits: with a batch interval, the changes
    /// after it wait for the interval's timer. Set before the log is read, so that a change
    /// appended during the send is sent by the timer, never lost.
    static func woken(batching: Bool) -> FanoutWake {
        batching ? .cooling : .idle
    }

    /// What the loop does when an interval after a batch ends.
    enum IntervalEnd: Sendable, Equatable {
        /// Changes came meanwhile: send them (and wait another interval).
        case send
        /// None came: stop the interval's timer; the next change is sent at once.
        case stopTimer
    }

    /// An interval after a batch ended: the state after it and what the loop does; nil when no
    /// interval runs.
    var afterInterval: (next: FanoutWake, end: IntervalEnd)? {
        switch self {
        case .coolingWithChanges: (.cooling, .send)
        case .cooling: (.idle, .stopTimer)
        case .idle, .queued: nil
        }
    }
}
