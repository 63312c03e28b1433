import LockTracing
import Synchronization

/// A ChaCha20 keystream keyed once from the operating system, shared by the loops behind a lock
/// (uncontended it costs a few dozen instructions; a `getrandom` system call costs thousands).
/// Each instance has its own key: no state is global.
final class RandomSource: Sendable {
    private let generator = Mutex(ChaCha20Generator())

    init() {}

    /// Two fresh 64-bit words.
    func next128() -> (UInt64, UInt64) {
        generator.withTracedLock { ($0.next(), $0.next()) }
    }

    func next64() -> UInt64 {
        generator.withTracedLock { $0.next() }
    }
}
