import Dispatch
import EventLoops
import Foundation
import LockTracing
import Synchronization
import TestSupport
import Testing

/// `EventLoop.isCurrent` and `LoopAffinity`: the answers a loop's state checks its callers with.
@Suite struct LoopAffinityTests {

    /// `body`'s answer, computed on a new thread that runs no loop.
    func onOtherThread<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T {
        let answer = Mutex<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread {
            answer.withTracedLock { $0 = body() }
            done.signal()
        }.start()
        done.wait()
        return answer.withTracedLock { $0! }
    }

    /// Runs `body` with two loops of their own, shut down after it.
    func withTwoLoops(_ body: (EventLoop, EventLoop) throws -> Void) throws {
        let first = try LoopThread(), second = try LoopThread()
        defer {
            first.shutdown()
            second.shutdown()
        }
        try body(first.loop, second.loop)
    }

    @Test("isCurrent: true on the loop's own thread only")
    func isCurrent() throws {
        try withTwoLoops { loop, second in
            #expect(onLoop(loop) { loop.isCurrent })
            #expect(!onLoop(second) { loop.isCurrent })
            #expect(!loop.isCurrent)
            #expect(!onOtherThread { loop.isCurrent })
        }
    }

    @Test("claimed on a loop: that loop is allowed, every time; another loop and a thread off the loops are not")
    func claimedOnALoop() throws {
        try withTwoLoops { first, second in
            let affinity = LoopAffinity()
            #expect(onLoop(first) { affinity.allowsCaller() })
            #expect(onLoop(first) { affinity.allowsCaller() })
            #expect(!onLoop(second) { affinity.allowsCaller() })
            #expect(!affinity.allowsCaller())
            #expect(!onOtherThread { affinity.allowsCaller() })
            #expect(onLoop(first) { affinity.allowsCaller() })
        }
    }

    @Test("claimed by a thread that runs no loop (a unit test's, a fuzzer's): that thread only")
    func claimedOffTheLoops() throws {
        let loopThread = try LoopThread()
        defer { loopThread.shutdown() }
        let affinity = LoopAffinity()
        #expect(affinity.allowsCaller())
        #expect(affinity.allowsCaller())
        #expect(!onLoop(loopThread.loop) { affinity.allowsCaller() })
        #expect(!onOtherThread { affinity.allowsCaller() })
        #expect(affinity.allowsCaller())
    }

    @Test("two loops claiming at once: exactly one is allowed, and stays so")
    func raceToClaim() throws {
        for _ in 0..<50 {
            let first = try LoopThread(), second = try LoopThread()
            let affinity = LoopAffinity()
            let answers = Mutex<[Bool]>([])
            let done = DispatchSemaphore(value: 0)
            for loop in [first.loop, second.loop] {
                loop.execute {
                    let allowed = affinity.allowsCaller()
                    answers.withTracedLock { $0.append(allowed) }
                    done.signal()
                }
            }
            done.wait()
            done.wait()
            #expect(answers.withTracedLock { $0.filter { $0 }.count } == 1)
            let firstAllowed = onLoop(first.loop) { affinity.allowsCaller() }
            #expect(onLoop(second.loop) { affinity.allowsCaller() } == !firstAllowed)
            first.shutdown()
            second.shutdown()
        }
    }
}
