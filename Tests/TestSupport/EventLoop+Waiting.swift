import Dispatch
import EventLoops
import LockTracing
import Synchronization

/// `body`'s answer, computed on `loop`'s thread and waited for (a test's thread asking a question
/// only the loop's own thread may answer).
package func onLoop<T: Sendable>(_ loop: EventLoop, _ body: @escaping @Sendable () -> T) -> T {
    let answer = Mutex<T?>(nil)
    let done = DispatchSemaphore(value: 0)
    loop.execute {
        answer.withTracedLock { $0 = body() }
        done.signal()
    }
    done.wait()
    return answer.withTracedLock { $0! }
}
