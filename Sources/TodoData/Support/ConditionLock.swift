import Glibc

/// A pthread mutex with one condition variable whose timed waits run on the monotonic clock: what
/// a thread that sleeps until work or a deadline (the log writer) needs, without Foundation's
/// `NSCondition`. ThreadSanitizer understands pthread mutexes, so no tracing is needed.
///
/// `lock` and `unlock` bracket every access to the state the condition guards; `wait` releases the
/// mutex while asleep and holds it again when it returns.
package final class ConditionLock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    package init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    package func lock() { pthread_mutex_lock(mutex) }
    package func unlock() { pthread_mutex_unlock(mutex) }

    /// Wakes one waiter (none waiting: no system call).
    package func signal() { pthread_cond_signal(condition) }
    /// Wakes every waiter.
    package func broadcast() { pthread_cond_broadcast(condition) }

    /// Sleeps until signalled (or woken spuriously: callers re-check their condition).
    package func wait() { pthread_cond_wait(condition, mutex) }

    /// Sleeps until signalled or `deadline` passes; false when it has passed.
    @discardableResult
    package func wait(until deadline: Deadline) -> Bool {
        var time = deadline.time
        return pthread_cond_timedwait(condition, mutex, &time) != ETIMEDOUT
    }

    /// A point on the monotonic clock, for `wait(until:)`.
    package struct Deadline {
        fileprivate let time: timespec

        /// `duration` from now (negative durations are now).
        package static func after(_ duration: Duration) -> Deadline {
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            let (seconds, attoseconds) = duration.components
            let nanoseconds = max(0, seconds) * 1_000_000_000 + (seconds >= 0 ? attoseconds / 1_000_000_000 : 0)
            let total = Int(now.tv_nsec) + Int(nanoseconds % 1_000_000_000)
            return Deadline(
                time: timespec(
                    tv_sec: now.tv_sec + Int(nanoseconds / 1_000_000_000) + total / 1_000_000_000,
                    tv_nsec: total % 1_000_000_000))
        }

        /// Whether the monotonic clock has reached it.
        var hasPassed: Bool {
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            return now.tv_sec > time.tv_sec || (now.tv_sec == time.tv_sec && now.tv_nsec >= time.tv_nsec)
        }
    }
}
