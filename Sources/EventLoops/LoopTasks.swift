import CLibevent
import LockTracing
import Synchronization

/// The work other threads hand one loop: queued under a lock, run on the loop's thread in the
/// order queued, woken by one libevent event. A server loop (`EventHTTP`) and a `StandaloneLoop`
/// each own one; `LoopExecutor` and `LoopHandle` queue onto it.
public final class LoopTasks: @unchecked Sendable {
    /// The loop's `event_base`; immutable for the loop's life.
    package let base: OpaquePointer
    /// Set once in `init`, freed once by `close` on the loop's thread after the loop stopped.
    private let wakeEvent: OpaquePointer
    /// Work queued by `enqueue`; nil once the loop has exited.
    private let tasks = Mutex<[@Sendable () -> Void]?>([])
    /// Work for the loop's thread when the loop stops (`whenStopping`); nil once it ran.
    private let stopping = Mutex<[@Sendable () -> Void]?>([])

    /// Nil when libevent cannot make the wake event.
    package init?(base: OpaquePointer) {
        self.base = base
        guard let event = event_new(base, -1, 0, nil, nil) else { return nil }
        wakeEvent = event
        event_assign(event, base, -1, 0, loopTasksCallback, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Queues `work` for the loop's thread and wakes the loop; drops it once the loop has exited.
    /// The wake happens under the queue's lock: `close` takes that lock before it frees the wake
    /// event, so a wake can never touch a freed event (it did, in a window between the unlock and
    /// `event_active`, when the loop closed at that moment). Lock order: queue, then libevent's.
    package func enqueue(_ work: @escaping @Sendable () -> Void) {
        tasks.withTracedLock { tasks in
            guard tasks != nil else { return }
            tasks!.append(work)
            if tasks!.count == 1 { event_active(wakeEvent, 0, 0) }
        }
    }

    /// Runs `body` under the queue's lock while the loop has not exited: how a stop requested
    /// from another thread after the loop drained and exited becomes a no-op instead of a use
    /// after free.
    package func whileOpen(_ body: () -> Void) {
        tasks.withTracedLock { tasks in
            if tasks != nil { body() }
        }
    }

    /// Runs the work queued so far, on the loop's thread.
    package func run() {
        let work = tasks.withTracedLock { tasks -> [@Sendable () -> Void] in
            defer { if tasks != nil { tasks = [] } }
            return tasks ?? []
        }
        for task in work { task() }
    }

    /// Queues `work` for the loop's thread when the loop stops, before its base is freed; false
    /// (and `work` dropped) once the loop has stopped.
    package func whenStopping(_ work: @escaping @Sendable () -> Void) -> Bool {
        stopping.withTracedLock { stopping in
            guard stopping != nil else { return false }
            stopping!.append(work)
            return true
        }
    }

    /// Drops later work, runs the `whenStopping` work and frees the wake event: once, on the loop's
    /// thread, after the loop stopped and before anything else of it is freed.
    package func close() {
        tasks.withTracedLock { $0 = nil }
        let work = stopping.withTracedLock { stopping -> [@Sendable () -> Void] in
            defer { stopping = nil }
            return stopping ?? []
        }
        for item in work { item() }
        event_free(wakeEvent)
    }
}

private let loopTasksCallback: @convention(c) (Int32, Int16, UnsafeMutableRawPointer?) -> Void = { _, _, context in
    Unmanaged<LoopTasks>.fromOpaque(context!).takeUnretainedValue().run()
}
