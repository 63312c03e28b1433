import Glibc

/// The tests' one way to wait: checks `condition` until it holds or `timeout` passes, pausing
/// `interval` between checks. Returns whether it held. Every test that waits for something the
/// server does in its own time (a sweep, a drain, a log line, a process exit) waits through this,
/// never through a fixed sleep.
@discardableResult
package func eventually(
    timeout: Duration = .seconds(20), interval: Duration = .milliseconds(10), _ condition: () throws -> Bool
) rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while true {
        if try condition() { return true }
        if ContinuousClock.now >= deadline { return false }
        let (seconds, attoseconds) = interval.components
        var pause = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        nanosleep(&pause, nil)
    }
}

/// `eventually` for a value: the first non-nil result of `produce`, or nil after `timeout`.
package func eventually<T>(
    timeout: Duration = .seconds(20), interval: Duration = .milliseconds(10), _ produce: () throws -> T?
) rethrows -> T? {
    var result: T?
    try eventually(timeout: timeout, interval: interval) {
        result = try produce()
        return result != nil
    }
    return result
}
