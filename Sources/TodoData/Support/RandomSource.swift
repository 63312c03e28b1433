import CSupport
import Glibc
import LockTracing
import Synchronization

/// Where the random bits of to-do ids and request ids come from. Every loop asks at once, so a
/// source is `Sendable`; the server's reads the kernel (`SystemRandom`), tests inject a seeded one.
public protocol RandomSource: Sendable {
    /// 64 fresh random bits.
    func next64() -> UInt64
    /// 128 fresh random bits, as two words.
    func next128() -> (UInt64, UInt64)
}

extension RandomSource {
    /// 128 fresh random bits, as two words.
    func next128() -> (UInt64, UInt64) {
        (next64(), next64())
    }
}

/// The kernel's generator, `getrandom(2)`, read 256 bytes at a time: one system call per 256 bytes
/// instead of one per 8-byte word (`SystemRandomNumberGenerator`: three per POST). Each instance
/// has its own buffer behind a lock (no global state); a word is handed out once and then wiped.
public final class SystemRandom: RandomSource {
    private let buffer = Mutex(Buffer())

    public init() {}

    public func next64() -> UInt64 {
        buffer.withTracedLock { $0.take() }
    }

    /// Two words under one lock (an id takes 128 bits).
    public func next128() -> (UInt64, UInt64) {
        buffer.withTracedLock { ($0.take(), $0.take()) }
    }

    private struct Buffer {
        private var words = [UInt64](repeating: 0, count: 32)
        /// The next unused word; `words.count` when all are spent.
        private var next = 32

        mutating func take() -> UInt64 {
            if next == words.count {
                refill()
                next = 0
            }
            defer {
                words[next] = 0
                next += 1
            }
            return words[next]
        }

        private mutating func refill() {
            words.withUnsafeMutableBytes { bytes in
                var filled = 0
                while filled < bytes.count {
                    let count = getrandom(bytes.baseAddress! + filled, bytes.count - filled, 0)
                    if count > 0 {
                        filled += count
                    } else if errno != EINTR {
                        break
                    }
                }
                guard filled < bytes.count else { return }
                // No getrandom (a kernel before 3.17): the standard library's generator falls back to /dev/urandom.
                var system = SystemRandomNumberGenerator()
                for index in 0..<bytes.count / 8 { bytes.storeBytes(of: system.next(), toByteOffset: index * 8, as: UInt64.self) }
            }
        }
    }
}
