import EventLoops
import Glibc
import LockTracing
import Synchronization
import TestSupport
import Testing

@testable import ChangeFeed

/// The server's feed loop (`EventLoopFeedScheduler`) on a real libevent loop: a pass's next slice
/// (through a turn timer) and work queued with `execute` both run after the loop polled its sockets.
@Suite struct FeedSchedulerTests {
    /// A chain of steps on one loop, each queuing the next, and a socket that turns readable at the
    /// first step (as a request does while a slice runs). Loop-confined but for `done`.
    final class Chain: @unchecked Sendable {
        let loop: any FeedLoop
        let steps: Int
        let writer: Int32
        let throughTurnTimer: Bool
        var watch: FileWatch?
        var turn: (any FeedTurnTimer)?
        var step = 0
        /// The step the chain had reached when the loop ran the socket's callback.
        var readAtStep: Int?
        let done = Mutex<Int?>(nil)

        init(loop: any FeedLoop, steps: Int, writer: Int32, throughTurnTimer: Bool) {
            self.loop = loop
            self.steps = steps
            self.writer = writer
            self.throughTurnTimer = throughTurnTimer
        }

        func next() {
            step += 1
            if step == 1 { _ = write(writer, "x", 1) }
            guard step < steps else { return done.withTracedLock { $0 = readAtStep ?? -1 } }
            if throughTurnTimer {
                if turn == nil { turn = loop.turnTimer { [self] in next() } }
                turn?.arm()
            } else {
                loop.execute { [self] in next() }
            }
        }
    }

    /// Runs a chain of `steps` on a fresh loop; answers the step at which the loop ran the
    /// callback of a socket made readable at the first step (-1: not before the chain ended).
    private func readAtStep(steps: Int, throughTurnTimer: Bool) throws -> Int? {
        let loopThread = try LoopThread()
        defer { loopThread.shutdown() }
        var sockets: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &sockets) == 0)
        defer {
            close(sockets[0])
            close(sockets[1])
        }
        let loop = loopThread.loop
        let (reader, writer) = (sockets[0], sockets[1])
        let chainBox = Mutex<Chain?>(nil)
        loop.execute {
            let feedLoop = EventLoopFeedScheduler().currentLoop()!
            let chain = Chain(loop: feedLoop, steps: steps, writer: writer, throughTurnTimer: throughTurnTimer)
            chain.watch = FileWatch(loop: loop, descriptor: reader) { [chain] readable, _ in
                guard readable else { return }
                if chain.readAtStep == nil { chain.readAtStep = chain.step }
                chain.watch?.watch(readable: false, writable: false)
            }
            chain.watch?.watch(readable: true, writable: false)
            chainBox.withTracedLock { $0 = chain }
            chain.next()
        }
        let result = eventually { chainBox.withTracedLock { $0?.done.withTracedLock { $0 } } }
        // Freed on the loop, while its base lives (before the stop the deferred shutdown queues),
        // which also breaks the chain's cycles through their callbacks.
        loop.execute {
            let chain = chainBox.withTracedLock { $0 }
            chain?.watch = nil
            chain?.turn = nil
        }
        return result
    }

    @Test func workQueuedWithExecuteFromTheLoopRunsAfterTheLoopPolledItsSockets() throws {
        // libevent runs what is made active during a turn in that turn. `execute` made its wake-up
        // active, and the whole chain ran before the readable socket was seen (-1 here until
        // 2026-12-07: a pass whose slices followed each other so held every request that came
        // during it). Its wake-up is a timer of no delay now: the socket's callback runs before step 2.
        #expect(try readAtStep(steps: 50, throughTurnTimer: false) == 1)
    }

    @Test func aTurnTimersWorkRunsAfterTheLoopPolledItsSockets() throws {
        // The socket turned readable at step 1; its callback runs before step 2.
        #expect(try readAtStep(steps: 50, throughTurnTimer: true) == 1)
    }
}
