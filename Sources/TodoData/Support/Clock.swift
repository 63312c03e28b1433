import Glibc

/// Tells the current time; injected so that interactors are tested with a fixed clock.
public protocol TodoClock: Sendable {
    func now() -> Timestamp
}

/// A clock that never goes back (`CLOCK_MONOTONIC`), for pacing: its timestamps count from an
/// arbitrary start, not the epoch, so they measure intervals and name no date.
public struct MonotonicClock: TodoClock {
    public init() {}

    public func now() -> Timestamp { .reading(CLOCK_MONOTONIC) }
}

/// The system's wall clock.
public struct SystemClock: TodoClock {
    public init() {}

    public func now() -> Timestamp { .reading(CLOCK_REALTIME) }
}

extension Timestamp {
    /// `clock`'s reading, in whole milliseconds.
    fileprivate static func reading(_ clock: clockid_t) -> Timestamp {
        var now = timespec()
        clock_gettime(clock, &now)
        return Timestamp(millisecondsSinceEpoch: Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000)
    }
}
