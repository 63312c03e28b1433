import Dispatch
import EventLoops
import LockTracing
import PostgresLoop
import Synchronization

extension LoopBound {
    /// Runs `body` with the value on its loop and waits for what it returns (a test's thread
    /// asking a loop-bound object a question).
    package func onLoop<Result: Sendable>(_ body: @escaping @Sendable (Value) -> Result) -> Result {
        let result = Mutex<Result?>(nil)
        let done = DispatchSemaphore(value: 0)
        withValue { value in
            result.withTracedLock { $0 = body(value) }
            done.signal()
        }
        done.wait()
        return result.withTracedLock { $0! }
    }
}
