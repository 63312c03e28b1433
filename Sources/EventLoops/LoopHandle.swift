/// One event loop as code beyond HTTP sees it: work queued onto its thread from anywhere, and the
/// `event_base` that `FileWatch` and `LoopTimer` register with. Get one from a server loop
/// (`LoopExecutor.handle`) or from a `StandaloneLoop`.
///
/// Watches and timers made from a handle must be created, changed and cancelled on its loop's
/// thread; only `execute` may be called from any thread.
public struct LoopHandle: Sendable {
    let tasks: LoopTasks

    package init(tasks: LoopTasks) {
        self.tasks = tasks
    }

    /// The loop's `event_base`: only touched on the loop's thread (or from `event_active`, which
    /// libevent makes thread-safe once `evthread_use_pthreads` ran).
    var base: OpaquePointer { tasks.base }

    /// Queues `work` to run on the loop's thread, in the order queued; dropped once the loop exited.
    public func execute(_ work: @escaping @Sendable () -> Void) {
        tasks.enqueue(work)
    }

    /// Queues `work` to run on the loop's thread when the loop stops, before its `event_base` is
    /// freed: where whoever holds `FileWatch`es or `LoopTimer`s on it that may outlive the loop
    /// cancels them (after that, cancelling one would touch a freed base). Returns false, dropping
    /// `work`, when the loop has stopped already.
    @discardableResult
    public func whenStopping(_ work: @escaping @Sendable () -> Void) -> Bool {
        tasks.whenStopping(work)
    }

    /// Tells loops apart (the same loop gives equal identities).
    public var identity: UInt {
        UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(base)))
    }
}

extension LoopExecutor {
    /// This server loop as a `LoopHandle`, for fd watches and timers on it.
    public var handle: LoopHandle {
        LoopHandle(tasks: tasks)
    }
}
