import CSupport
import Synchronization

extension Mutex where Value: ~Copyable {
    /// `withLock`, also announced to ThreadSanitizer. `Mutex` on Linux waits on a priority-
    /// inheritance futex: when two threads contend, the kernel hands the lock over and TSan, which
    /// sees no atomic operation on that path, reports the guarded state as raced (four threads
    /// appending to a `Mutex<[Int]>` under `-sanitize=thread`, Swift 6.3.1: 4 reports with
    /// `withLock`, 0 with this). The lock is named by the mutex's own address (a borrowed
    /// `~Copyable` value is never copied), taken outside the guarded access so that taking it is no
    /// access TSan could see race. Outside `-sanitize=thread` builds the announcements are two null
    /// checks. Use this instead of `withLock` everywhere.
    @inlinable
    public borrowing func withTracedLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        let address = withUnsafePointer(to: self) { UnsafeMutableRawPointer(mutating: $0) }
        return try withLock { (value) throws(E) -> sending Result in
            todo_tsan_acquire(address)
            defer { todo_tsan_release(address) }
            return try body(&value)
        }
    }
}
