import CSupport
import Synchronization

extension Mutex where Value: ~Copyable {
    /// `withLock`, also announced to ThreadSanitizer, which cannot see the futex `Mutex` waits on
    /// and would report the guarded state as raced. `owner`, the object that holds this mutex,
    /// names the lock. Outside `-sanitize=thread` builds the announcements are null checks.
    borrowing func withLock<Result: ~Copyable, E: Error>(
        tracing owner: AnyObject, _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        try withLock { (value) throws(E) -> sending Result in
            let address = Unmanaged.passUnretained(owner).toOpaque()
            todo_tsan_acquire(address)
            defer { todo_tsan_release(address) }
            return try body(&value)
        }
    }
}
