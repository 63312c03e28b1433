import CLibevent
import Glibc
import LockTracing
import Synchronization

/// An event loop of its own on its own thread, without the HTTP server: for code that needs fd
/// watches and timers on a loop before or without a server (tests, start-up work, benchmarks).
public final class StandaloneLoop: Sendable {
    private let base: Base
    private let tasks = Mutex<[@Sendable () -> Void]?>([])
    private let taskEvent: Base
    private let thread = Mutex<pthread_t?>(nil)

    /// Starts the loop's thread. Throws when libevent cannot make the loop.
    public init() throws(HTTPServerError) {
        evthread_use_pthreads()
        guard let base = event_base_new() else { throw .cannotCreateLoop }
        self.base = Base(pointer: base)
        taskEvent = Base(pointer: nil)
        let context = Unmanaged.passUnretained(self).toOpaque()
        guard let event = event_new(base, -1, 0, standaloneTaskCallback, context) else {
            event_base_free(base)
            throw .cannotCreateLoop
        }
        taskEvent.pointer = event
        let retained = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let created = pthread_create(&thread, nil, { context in
            let loop = Unmanaged<StandaloneLoop>.fromOpaque(context!).takeRetainedValue()
            loop.run()
            return nil
        }, retained)
        guard created == 0 else {
            Unmanaged<StandaloneLoop>.fromOpaque(retained).release()
            event_free(event)
            event_base_free(base)
            throw .cannotCreateLoop
        }
        self.thread.withTracedLock { $0 = thread }
    }

    /// The loop for `execute`, `FileWatch` and `LoopTimer`.
    public var handle: LoopHandle {
        LoopHandle(base: base.pointer!, enqueue: { [self] work in enqueue(work) })
    }

    /// Stops the loop after the work queued so far and waits for its thread to end. Watches and
    /// timers still registered are left to their owners (cancel them on the loop first). Idempotent.
    public func shutdown() {
        enqueue { [base] in event_base_loopbreak(base.pointer) }
        guard let thread = thread.withTracedLock({ value -> pthread_t? in defer { value = nil }; return value }) else { return }
        pthread_join(thread, nil)
    }

    private func run() {
        event_base_loop(base.pointer, EVLOOP_NO_EXIT_ON_EMPTY)
        runTasks()
        tasks.withTracedLock { $0 = nil }
        event_free(taskEvent.pointer)
        event_base_free(base.pointer)
    }

    private func enqueue(_ work: @escaping @Sendable () -> Void) {
        let wake = tasks.withTracedLock { tasks -> Bool in
            guard tasks != nil else { return false }
            tasks!.append(work)
            return tasks!.count == 1
        }
        if wake { event_active(taskEvent.pointer, 0, 0) }
    }

    fileprivate func runTasks() {
        let work = tasks.withTracedLock { tasks -> [@Sendable () -> Void] in
            defer { if tasks != nil { tasks = [] } }
            return tasks ?? []
        }
        for task in work { task() }
    }

    /// A libevent pointer set once before the thread starts and freed once after it ends.
    private final class Base: @unchecked Sendable {
        var pointer: OpaquePointer?
        init(pointer: OpaquePointer?) { self.pointer = pointer }
    }
}

private let standaloneTaskCallback: @convention(c) (Int32, Int16, UnsafeMutableRawPointer?) -> Void = { _, _, context in
    Unmanaged<StandaloneLoop>.fromOpaque(context!).takeUnretainedValue().runTasks()
}
