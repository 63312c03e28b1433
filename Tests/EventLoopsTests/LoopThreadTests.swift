import EventLoops
import Glibc
import LockTracing
import Synchronization
import TestSupport
import Testing

/// Fd watches and timers on a `LoopThread`, without the HTTP server.
@Suite struct LoopThreadTests {
    /// Loop-confined test objects kept alive between loop turns.
    final class Holder: @unchecked Sendable {
        var watch: FileWatch?
        var timer: LoopTimer?
        var probe: LoopTimer?
    }

    /// A loop's thread finds its loop as `EventLoop.current`; other threads find none.
    @Test func theLoopsThreadFindsItsLoopAsTheCurrentOne() throws {
        let loopThread = try LoopThread()
        defer { loopThread.shutdown() }
        let loop = loopThread.loop
        let found = Mutex<Bool?>(nil)
        loop.execute { found.withTracedLock { $0 = EventLoop.current === loop } }
        #expect(eventually { found.withTracedLock { $0 } != nil })
        #expect(found.withTracedLock { $0 } == true)
        #expect(EventLoop.current == nil)
    }

    /// What libevent logs on a loop's thread goes to that loop's `onLibeventMessage`.
    @Test func libeventsMessagesOnALoopsThreadGoToThatLoop() throws {
        EventLoop.routeLibeventLog()
        let loopThread = try LoopThread()
        defer { loopThread.shutdown() }
        let loop = loopThread.loop
        // epoll refuses a directory: libevent logs the failed add.
        let directory = open("/", O_RDONLY | O_CLOEXEC)
        try #require(directory >= 0)
        defer { close(directory) }
        let holder = Holder()
        let messages = Mutex<[String]>([])
        loop.execute {
            loop.onLibeventMessage = { _, message in messages.withTracedLock { $0.append(message) } }
            holder.watch = FileWatch(loop: loop, descriptor: directory) { _, _ in }
            holder.watch?.watch(readable: true, writable: false)
            holder.watch?.cancel()
        }
        #expect(eventually { !messages.withTracedLock { $0 }.isEmpty })
        #expect(messages.withTracedLock { $0 }.contains { $0.contains("fd \(directory)") }, "\(messages.withTracedLock { $0 })")
    }

    @Test func whenStoppingWorkRunsOnTheLoopsThreadAtStopAndIsRefusedAfter() throws {
        let loopThread = try LoopThread()
        let loop = loopThread.loop
        let holder = Holder()
        let loopThreadID = Mutex<pthread_t?>(nil)
        let stoppingThread = Mutex<pthread_t?>(nil)
        let registered = Mutex<Bool?>(nil)
        loop.execute {
            loopThreadID.withTracedLock { $0 = pthread_self() }
            holder.timer = LoopTimer(loop: loop) {}
            holder.timer?.schedule(after: .seconds(3600))
            let accepted = loop.whenStopping {
                stoppingThread.withTracedLock { $0 = pthread_self() }
                holder.timer?.cancel()
            }
            registered.withTracedLock { $0 = accepted }
        }
        #expect(eventually { registered.withTracedLock { $0 } != nil })
        #expect(registered.withTracedLock { $0 } == true)
        #expect(stoppingThread.withTracedLock { $0 } == nil, "nothing runs before the loop stops")
        loopThread.shutdown()
        let onLoop = try #require(loopThreadID.withTracedLock { $0 })
        let atStop = try #require(stoppingThread.withTracedLock { $0 })
        #expect(pthread_equal(onLoop, atStop) != 0)
        #expect(holder.timer?.isScheduled == false)
        // Released here, after the base was freed: the timer was cancelled on the loop, so its
        // deinit frees nothing.
        holder.timer = nil
        #expect(loop.whenStopping {} == false)
    }

    /// Another thread queues work without pause while the loop stops: every item runs or is
    /// dropped, and no wake touches the loop after it was freed (AddressSanitizer and
    /// ThreadSanitizer runs of this test catch a wake issued after `close`).
    @Test func workQueuedWhileTheLoopStopsRunsOrIsDroppedWithoutTouchingAFreedLoop() throws {
        for round in 0..<100 {
            let loopThread = try LoopThread()
            let loop = loopThread.loop
            let ran = Mutex<Int>(0)
            let state = Mutex<(stop: Bool, finished: Bool)>((false, false))
            let started = DetachedThread.start {
                while !state.withTracedLock({ $0.stop }) {
                    loop.execute { ran.withTracedLock { $0 += 1 } }
                }
                state.withTracedLock { $0.finished = true }
            }
            try #require(started)
            #expect(eventually { ran.withTracedLock { $0 } > 0 }, "round \(round): queued work runs")
            loopThread.shutdown()
            #expect(loop.whenStopping {} == false, "round \(round): the loop has stopped")
            state.withTracedLock { $0.stop = true }
            #expect(eventually { state.withTracedLock { $0.finished } })
        }
    }

    /// Work that queues more work each time it runs keeps the loop's wake-up armed in every turn: a
    /// stop still ends the loop. (When the wake-up was made ready with `event_active`, libevent ran
    /// it again in the same turn, the turn never ended, and a CI run's test process grew until the
    /// kernel killed it.) If the loop does not stop, the test ends the chain so that the failure
    /// does not hang.
    @Test func aLoopWhoseQueuedWorkQueuesMoreWorkStillStops() throws {
        let loopThread = try LoopThread()
        let loop = loopThread.loop
        let work = RequeueingWork(on: loop)
        #expect(eventually { work.runs > 100 })
        let stopped = Mutex(false)
        let started = DetachedThread.start {
            loopThread.shutdown()
            stopped.withTracedLock { $0 = true }
        }
        try #require(started)
        let stoppedWhileRequeueing = eventually(timeout: .seconds(10)) { stopped.withTracedLock { $0 } }
        work.end()
        #expect(stoppedWhileRequeueing, "the loop stops although its queued work queues more")
        #expect(eventually { stopped.withTracedLock { $0 } })
        #expect(loop.whenStopping {} == false)
    }

    /// Work that queues more work each time it runs does not keep the loop from its sockets: what
    /// is queued runs in a later turn, after a poll, so a pipe's byte is read while the chain goes
    /// on. (Made ready in the turn under way, as it was, the chain's wake-up ran again and again in
    /// one turn and the loop never polled.) The test ends the chain itself, so a failure does not hang.
    @Test func workThatKeepsQueueingMoreDoesNotKeepTheLoopFromItsSockets() throws {
        let loopThread = try LoopThread()
        defer { loopThread.shutdown() }
        let loop = loopThread.loop
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        let (reader, writer) = (ends[0], ends[1])
        let holder = Holder()
        let read = Mutex(false)
        let watching = Mutex(false)
        loop.execute {
            holder.watch = FileWatch(loop: loop, descriptor: reader) { readable, _ in
                guard readable else { return }
                var byte: UInt8 = 0
                if Glibc.read(reader, &byte, 1) == 1 { read.withTracedLock { $0 = true } }
            }
            holder.watch?.watch(readable: true, writable: false)
            watching.withTracedLock { $0 = true }
        }
        try #require(eventually { watching.withTracedLock { $0 } })
        let work = RequeueingWork(on: loop)
        #expect(eventually { work.runs > 100 })
        #expect(write(writer, "x", 1) == 1)
        let readWhileRequeueing = eventually(timeout: .seconds(10)) { read.withTracedLock { $0 } }
        let runsThen = work.runs
        work.end()
        #expect(readWhileRequeueing, "the byte is read while the chain goes on (\(runsThen) runs)")
        let cancelled = Mutex(false)
        loop.execute {
            holder.watch?.cancel()
            cancelled.withTracedLock { $0 = true }
        }
        #expect(eventually { cancelled.withTracedLock { $0 } })
    }

    @Test func aWatchReportsReadableDataAndStopsWhenCancelled() throws {
        let loopThread = try LoopThread()
        defer { loopThread.shutdown() }
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        let (reader, writer) = (ends[0], ends[1])
        let received = Mutex<[UInt8]>([])
        let holder = Holder()
        let loop = loopThread.loop
        loop.execute {
            holder.watch = FileWatch(loop: loop, descriptor: reader) { readable, _ in
                guard readable else { return }
                var buffer = [UInt8](repeating: 0, count: 64)
                let count = read(reader, &buffer, 64)
                if count > 0 { received.withTracedLock { $0 += buffer[0..<count] } }
            }
            holder.watch?.watch(readable: true, writable: false)
        }
        #expect(write(writer, "ab", 2) == 2)
        #expect(eventually { received.withTracedLock { $0 } == Array("ab".utf8) })
        #expect(write(writer, "c", 1) == 1)
        #expect(eventually { received.withTracedLock { $0 } == Array("abc".utf8) })

        // Cancelled: the next byte stays in the pipe.
        let cancelled = Mutex(false)
        loop.execute {
            holder.watch?.cancel()
            cancelled.withTracedLock { $0 = true }
        }
        #expect(eventually { cancelled.withTracedLock { $0 } })
        #expect(write(writer, "d", 1) == 1)
        // A timer set after the write fires in a later loop iteration than the one whose poll saw
        // the pipe readable: once it fired, a live watch would have read the byte.
        let turned = Mutex(false)
        loop.execute {
            holder.timer = LoopTimer(loop: loop) { turned.withTracedLock { $0 = true } }
            holder.timer?.schedule(after: .milliseconds(20))
        }
        #expect(eventually { turned.withTracedLock { $0 } })
        _ = fcntl(reader, F_SETFL, O_NONBLOCK)
        var byte: UInt8 = 0
        #expect(read(reader, &byte, 1) == 1)
        #expect(byte == UInt8(ascii: "d"))
        #expect(received.withTracedLock { $0 } == Array("abc".utf8))
        loop.execute { holder.timer?.cancel() }
    }

    @Test func timersFireOnceOrRepeatedlyOnTheLoopThreadUntilStopped() throws {
        let loopThread = try LoopThread()
        defer { loopThread.shutdown() }
        let loop = loopThread.loop
        let loopThreadID = Mutex<pthread_t?>(nil)
        let once = Mutex(0), repeated = Mutex(0), onLoop = Mutex(true)
        let holder = Holder()
        let oneShot = Holder()
        loop.execute {
            loopThreadID.withTracedLock { $0 = pthread_self() }
            oneShot.timer = LoopTimer(loop: loop) {
                once.withTracedLock { $0 += 1 }
                onLoop.withTracedLock { $0 = $0 && pthread_equal(pthread_self(), loopThreadID.withTracedLock { $0! }) != 0 }
            }
            oneShot.timer?.schedule(after: .milliseconds(5))
            // Weakly: the holder keeps the timer, whose closure would otherwise keep the holder.
            holder.timer = LoopTimer(loop: loop, repeating: true) { [weak holder] in
                repeated.withTracedLock { $0 += 1 }
                if repeated.withTracedLock({ $0 }) == 3 { holder?.timer?.stop() }
            }
            holder.timer?.schedule(after: .milliseconds(2))
        }
        #expect(eventually { once.withTracedLock { $0 } == 1 && repeated.withTracedLock { $0 } == 3 })
        // Let a few more periods pass on the loop: neither fires again.
        let later = Mutex(false)
        loop.execute {
            let probe = LoopTimer(loop: loop) { later.withTracedLock { $0 = true } }
            probe?.schedule(after: .milliseconds(30))
            holder.probe = probe
        }
        #expect(eventually { later.withTracedLock { $0 } })
        #expect(once.withTracedLock { $0 } == 1)
        #expect(repeated.withTracedLock { $0 } == 3)
        #expect(onLoop.withTracedLock { $0 })
        loop.execute {
            holder.timer?.cancel()
            oneShot.timer?.cancel()
            holder.probe?.cancel()
        }
    }
}
