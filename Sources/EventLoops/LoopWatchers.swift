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
    public init?(loop: LoopHandle, descriptor: Int32, onEvent: @escaping (_ readable: Bool, _ writable: Bool) -> Void) {
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

/// Calls back on the loop's thread after a delay, once or every period (`event_new` with no
/// descriptor). Create, schedule and cancel it on the loop's thread. Cancelled on deinit.
public final class LoopTimer {
    private let callback: Callback
    private var event: OpaquePointer?
    private let repeating: Bool
    /// Whether the timer will fire (scheduled and not fired yet, or repeating).
    public private(set) var isScheduled = false

    /// `onFire` runs on the loop's thread. Nil when libevent cannot make the event.
    public init?(loop: LoopHandle, repeating: Bool = false, onFire: @escaping () -> Void) {
        self.repeating = repeating
        callback = Callback()
        let context = Unmanaged.passUnretained(callback).toOpaque()
        event = event_new(loop.base, -1, repeating ? Int16(EV_PERSIST) : 0, timerCallback, context)
        guard event != nil else { return nil }
        callback.body = { [unowned self] in
            if !self.repeating { self.isScheduled = false }
            onFire()
        }
    }

    /// Fires after `delay` (and every `delay` when repeating), replacing any earlier schedule.
    public func schedule(after delay: Duration) {
        guard let event else { return }
        let (seconds, attoseconds) = max(delay, .zero).components
        var interval = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
        event_add(event, &interval)
        isScheduled = true
    }

    /// Unschedules it; it can be scheduled again.
    public func stop() {
        guard let event else { return }
        event_del(event)
        isScheduled = false
    }

    /// Frees the event for good. Idempotent.
    public func cancel() {
        if let event { event_free(event) }
        event = nil
        isScheduled = false
    }

    deinit {
        cancel()
    }

    fileprivate final class Callback {
        var body: () -> Void = {}
    }
}

private let fileCallback: @convention(c) (Int32, Int16, UnsafeMutableRawPointer?) -> Void = { _, what, context in
    let callback = Unmanaged<FileWatch.Callback>.fromOpaque(context!).takeUnretainedValue()
    withExtendedLifetime(callback) {
        callback.body(what & Int16(EV_READ) != 0, what & Int16(EV_WRITE) != 0)
    }
}

private let timerCallback: @convention(c) (Int32, Int16, UnsafeMutableRawPointer?) -> Void = { _, _, context in
    let callback = Unmanaged<LoopTimer.Callback>.fromOpaque(context!).takeUnretainedValue()
    withExtendedLifetime(callback) { callback.body() }
}
