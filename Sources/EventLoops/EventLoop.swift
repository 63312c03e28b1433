import CLibevent
import LockTracing
import Synchronization

/// One libevent loop: an `event_base` run on one thread, and the work other threads queue onto
/// that thread. `execute`, `whenStopping` and `identity` may be used from any thread; the base,
/// and the `FileWatch`es and `LoopTimer`s on it, only on the loop's thread.
///
/// A `LoopThread` runs one on a thread of its own; the HTTP server runs one per listener thread
/// (`HTTPLoopServer`). Whoever runs it calls `run`, then `close` on the same thread.
public final class EventLoop: @unchecked Sendable {
    /// The loop's `event_base`; immutable for the loop's life. `event_add` and `event_active` of
    /// its events are thread-safe (`evthread_use_pthreads`: the base's lock); nothing else here is.
    package let base: OpaquePointer
    /// Wakes the loop to run the queued work: a timer of no time, so that the work runs in the
    /// loop's next turn, after a poll. (`event_active` would make it ready in the turn under way,
    /// and libevent runs what becomes ready during a turn in that same turn: work that kept coming,
    /// or that queued more, kept the loop from its sockets, its timers, the end of its turn and
    /// its stop for as long as it came.) Freed by `close`.
    private let wakeEvent: OpaquePointer
    /// Work queued by `execute`; nil once the loop has closed.
    private let queued = Mutex<[@Sendable () -> Void]?>([])
    /// Work for the loop's thread when the loop stops (`whenStopping`); nil once it ran.
    private let stopping = Mutex<[@Sendable () -> Void]?>([])
    /// False once the base is freed (under this lock).
    private let baseAlive = Mutex(true)
    /// `stopRunning` was called (read and written on the loop's thread only).
    private var stopRequested = false
    /// Where libevent's messages logged on this loop's thread go (`routeLibeventLog`); nil: to
    /// stderr. Set before the loop's thread starts.
    package var onLibeventMessage: ((_ severity: Int32, _ message: String) -> Void)?

    /// A new loop, not running yet. Throws when libevent cannot make it.
    package init() throws(LoopError) {
        _ = Self.threading
        guard let base = event_base_new() else { throw .cannotCreateLoop }
        guard let event = event_new(base, -1, 0, nil, nil) else {
            event_base_free(base)
            throw .cannotCreateLoop
        }
        self.base = base
        wakeEvent = event
        event_assign(event, base, -1, 0, runQueuedCallback, Unmanaged.passUnretained(self).toOpaque())
    }

    /// libevent's locking, before the first base is made (process-wide, once).
    private static let threading: Void = { evthread_use_pthreads() }()

    /// Tells loops apart (the same loop gives equal identities).
    public var identity: UInt {
        UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(base)))
    }

    /// Queues `work` to run on the loop's thread, in the order queued, from any thread. Work queued
    /// after the loop closed is dropped: what it was for is gone with the loop.
    public func execute(_ work: @escaping @Sendable () -> Void) {
        // The wake happens under the queue's lock, which `close` takes before it frees the wake
        // event. Lock order: queue, then libevent's.
        queued.withTracedLock { queued in
            guard queued != nil else { return }
            queued!.append(work)
            if queued!.count == 1 {
                var now = timeval()
                // Fails only when libevent cannot grow its timer heap: wake the loop in this turn
                // then, rather than leave the queue waiting for good.
                if event_add(wakeEvent, &now) != 0 { event_active(wakeEvent, Int32(EV_TIMEOUT), 0) }
            }
        }
    }

    /// Queues `work` to run on the loop's thread when the loop stops, before its base is freed:
    /// where whoever holds `FileWatch`es or `LoopTimer`s on it that may outlive the loop cancels
    /// them (after that, cancelling one would touch a freed base). Returns false, dropping `work`,
    /// when the loop has stopped already.
    @discardableResult
    public func whenStopping(_ work: @escaping @Sendable () -> Void) -> Bool {
        stopping.withTracedLock { stopping in
            guard stopping != nil else { return false }
            stopping!.append(work)
            return true
        }
    }

    /// Runs `body` under the queue's lock while the loop has not closed: a wake-up of the owner's
    /// own (a shutdown requested from another thread) that must not touch the base once it is freed.
    package func whileOpen(_ body: () -> Void) {
        queued.withTracedLock { queued in
            if queued != nil { body() }
        }
    }

    /// Runs `body` while the base is not freed (from any thread): what frees an event of the base
    /// after its loop may have closed.
    package func whileBaseAlive(_ body: () -> Void) {
        baseAlive.withTracedLock { alive in
            if alive { body() }
        }
    }

    /// Makes the calling thread the loop's (`current`) and runs the loop until `stopRunning`. With
    /// `afterEachTurn`, the loop runs a turn at a time — a poll, then every callback it made ready —
    /// and calls it after each turn, before the next poll: where what the turn's callbacks queued is
    /// carried out together (the HTTP server's writes).
    package func run(afterEachTurn: (() -> Void)? = nil) {
        bindCurrentThread()
        guard let afterEachTurn else {
            event_base_loop(base, EVLOOP_NO_EXIT_ON_EMPTY)
            return
        }
        while event_base_loop(base, EVLOOP_ONCE | EVLOOP_NO_EXIT_ON_EMPTY) == 0 {
            afterEachTurn()
            // Not `event_base_got_break`: it takes the base's lock (~170 instructions a turn).
            if stopRequested { return }
        }
    }

    /// Stops `run` at the end of the turn in which it is called, once the callbacks ready in that
    /// turn have run (queued work whose wake-up is among them included), on the loop's thread (from
    /// a callback, or work queued with `execute`).
    ///
    /// Work queued with `execute` from then on waits for a turn that does not come: it runs when
    /// whoever ran the loop calls `runQueued` after `run` returned (`LoopThread` and
    /// `HTTPLoopServer` do), and is dropped by `close` otherwise.
    package func stopRunning() {
        assert(isCurrent, "stopRunning is called on the loop's thread")
        stopRequested = true
        event_base_loopexit(base, nil)
    }

    /// Runs the work queued so far, on the loop's thread.
    package func runQueued() {
        let work = queued.withTracedLock { queued -> [@Sendable () -> Void] in
            defer { if queued != nil { queued = [] } }
            return queued ?? []
        }
        for item in work { item() }
    }

    /// Once, on the loop's thread, after `run` returned: drops later work, runs the `whenStopping`
    /// work, frees the wake event, lets `freeing` free what the owner registered on the base, and
    /// frees the base.
    package func close(freeing: () -> Void = {}) {
        queued.withTracedLock { $0 = nil }
        let work = stopping.withTracedLock { stopping -> [@Sendable () -> Void] in
            defer { stopping = nil }
            return stopping ?? []
        }
        for item in work { item() }
        event_free(wakeEvent)
        freeing()
        baseAlive.withTracedLock { alive in
            alive = false
            event_base_free(base)
        }
    }
}

private let runQueuedCallback: @convention(c) (Int32, Int16, UnsafeMutableRawPointer?) -> Void = { _, _, context in
    Unmanaged<EventLoop>.fromOpaque(context!).takeUnretainedValue().runQueued()
}
