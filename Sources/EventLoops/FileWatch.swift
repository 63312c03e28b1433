import CLibevent

/// Calls back on the loop's thread when a file descriptor turns readable or writable, for as long as
/// it is watched (`event_new` with `EV_PERSIST`, one event per direction). Create, change and cancel
/// it on the loop's thread; cancel it before the descriptor is closed (a new socket may reuse the
/// number). Cancelled on deinit.
public final class FileWatch {
    private let callback: Callback
    private var readEvent: OpaquePointer?
    private var writeEvent: OpaquePointer?
    private var watchingRead = false
    private var watchingWrite = false
    /// The watched descriptor.
    public let descriptor: Int32

    /// `onEvent(readable, writable)` runs on the loop's thread. Nil when libevent cannot make the events.
    public init?(loop: EventLoop, descriptor: Int32, onEvent: @escaping (_ readable: Bool, _ writable: Bool) -> Void) {
        self.descriptor = descriptor
        callback = Callback(onEvent)
        let context = Unmanaged.passUnretained(callback).toOpaque()
        readEvent = event_new(loop.base, descriptor, Int16(EV_READ | EV_PERSIST), fileCallback, context)
        writeEvent = event_new(loop.base, descriptor, Int16(EV_WRITE | EV_PERSIST), fileCallback, context)
        guard readEvent != nil, writeEvent != nil else {
            cancel()
            return nil
        }
    }

    /// Sets what to watch for; a direction already in the wanted state is left alone.
    public func watch(readable: Bool, writable: Bool) {
        if readable != watchingRead, let readEvent {
            if readable { event_add(readEvent, nil) } else { event_del(readEvent) }
            watchingRead = readable
        }
        if writable != watchingWrite, let writeEvent {
            if writable { event_add(writeEvent, nil) } else { event_del(writeEvent) }
            watchingWrite = writable
        }
    }

    /// Stops and frees the events for good; the callback is not called again. Idempotent.
    public func cancel() {
        if let readEvent { event_free(readEvent) }
        if let writeEvent { event_free(writeEvent) }
        readEvent = nil
        writeEvent = nil
        watchingRead = false
        watchingWrite = false
    }

    deinit {
        cancel()
    }

    fileprivate final class Callback {
        let body: (Bool, Bool) -> Void
        init(_ body: @escaping (Bool, Bool) -> Void) { self.body = body }
    }
}

private let fileCallback: @convention(c) (Int32, Int16, UnsafeMutableRawPointer?) -> Void = { _, what, context in
    let callback = Unmanaged<FileWatch.Callback>.fromOpaque(context!).takeUnretainedValue()
    withExtendedLifetime(callback) {
        callback.body(what & Int16(EV_READ) != 0, what & Int16(EV_WRITE) != 0)
    }
}
