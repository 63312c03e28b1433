import Dispatch
import LockTracing
import Synchronization
import Testing

/// `Mutex.withTracedLock`: `withLock`, also announced to ThreadSanitizer. What its comment
/// measured (four threads appending to a `Mutex<[Int]>`: 4 TSan reports with `withLock`, 0 with
/// this) is `contention` below; `scripts/sanitizers.sh thread` runs it and fails on any report.
@Suite struct TracedLockTests {
    final class Shared: Sendable {
        let values = Mutex<[Int]>([])
    }

    @Test("four threads appending to one mutex: every value is kept once")
    func contention() {
        let shared = Shared()
        let threads = 4
        let rounds = 5_000
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for round in 0..<rounds {
                shared.values.withTracedLock { $0.append(thread * rounds + round) }
            }
        }
        let values = shared.values.withTracedLock { $0 }
        #expect(values.count == threads * rounds)
        #expect(Set(values) == Set(0..<threads * rounds))
    }

    @Test("the body's result is returned; its error is thrown, and the lock is free again after it")
    func resultAndError() {
        struct Refused: Error {}
        let value = Mutex(1)
        let result = value.withTracedLock { number -> Int in
            number += 1
            return number * 10
        }
        #expect(result == 20)
        #expect(throws: Refused.self) {
            try value.withTracedLock { (_: inout Int) throws(Refused) -> Void in throw Refused() }
        }
        #expect(value.withTracedLock { $0 } == 2)
    }
}
