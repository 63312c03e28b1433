import EventLoops
import LockTracing
import Synchronization
import TestSupport
import Testing

/// A loop run a turn at a time (`run(afterEachTurn:)`, the HTTP server's writes at the end of a
/// turn): the call after each turn comes after that turn's callbacks, and a stop asked for in a turn
/// ends the run at that turn's end.
@Suite struct EventLoopTurnTests {
    @Test func theCallAfterEachTurnComesAfterItsCallbacksAndAStopEndsTheRun() throws {
        let loop = try EventLoop()
        let log = Mutex<[String]>([])
        let finished = Mutex(false)
        let started = DetachedThread.start {
            loop.run(afterEachTurn: { log.withTracedLock { $0.append("turn") } })
            log.withTracedLock { $0.append("returned") }
            loop.close()
            finished.withTracedLock { $0 = true }
        }
        try #require(started)
        loop.execute { log.withTracedLock { $0.append("a") } }
        #expect(eventually { log.withTracedLock { $0 } == ["a", "turn"] })
        // Work queued from a callback runs in that turn or the next; a call ends each turn.
        loop.execute {
            loop.execute { log.withTracedLock { $0.append("c") } }
            log.withTracedLock { $0.append("b") }
        }
        #expect(eventually { log.withTracedLock { $0.contains("c") && $0.last == "turn" } })
        let afterB = log.withTracedLock { Array($0.drop { $0 != "b" }) }
        #expect(afterB.first == "b" && afterB.last == "turn", "\(afterB)")
        loop.execute {
            log.withTracedLock { $0.append("stop") }
            loop.stopRunning()
        }
        #expect(eventually { finished.withTracedLock { $0 } })
        let tail = log.withTracedLock { Array($0.drop { $0 != "stop" }) }
        #expect(tail == ["stop", "turn", "returned"], "the stopping turn's call, then the run returns")
    }

    /// Work that queues more work each time it runs still lets each turn end (where the HTTP server
    /// writes its answers): what it queues runs in the next turn. The test ends the chain itself,
    /// so a failure does not hang.
    @Test func workThatKeepsQueueingMoreLetsEachTurnEnd() throws {
        let loop = try EventLoop()
        let turns = Mutex(0)
        let finished = Mutex(false)
        let started = DetachedThread.start {
            loop.run(afterEachTurn: { turns.withTracedLock { $0 += 1 } })
            loop.close()
            finished.withTracedLock { $0 = true }
        }
        try #require(started)
        let work = RequeueingWork(on: loop)
        #expect(eventually { work.runs > 10 })
        let turnsBefore = turns.withTracedLock { $0 }
        let turnsWent = eventually(timeout: .seconds(10)) { turns.withTracedLock { $0 } > turnsBefore + 10 }
        work.end()
        #expect(turnsWent, "turns end while the chain goes on")
        loop.execute { loop.stopRunning() }
        #expect(eventually { finished.withTracedLock { $0 } })
    }
}
