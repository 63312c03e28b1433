import CLibevent

/// Calls back on the loop's thread after a delay, once or every period (`event_new` with no
/// descriptor). Create, schedule and cancel it on the loop's thread. Cancelled on deinit.
public final class LoopTimer {
    private let callback: Callback
    private var event: OpaquePointer?
    /// Its loop: the event is freed only while the loop's base is (a timer released after its
    /// loop closed, on another thread, would free into a freed base and hang on its lock).
    private let loop: EventLoop
    private let repeating: Bool
    /// Whether the timer will fire (scheduled and not fired yet, or repeating).
    public private(set) var isScheduled = false

    /// `onFire` runs on the loop's thread. Nil when libevent cannot make the event.
    public init?(loop: EventLoop, repeating: Bool = false, onFire: @escaping () -> Void) {
        self.repeating = repeating
        self.loop = loop
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

    /// Frees the event for good (nothing once its loop has closed: the base went with it).
    /// Idempotent.
    public func cancel() {
        guard let event else { return }
        self.event = nil
        isScheduled = false
        loop.whileBaseAlive { event_free(event) }
    }

    deinit {
        cancel()
    }

    fileprivate final class Callback {
        var body: () -> Void = {}
    }
}

private let timerCallback: @convention(c) (Int32, Int16, UnsafeMutableRawPointer?) -> Void = { _, _, context in
    let callback = Unmanaged<LoopTimer.Callback>.fromOpaque(context!).takeUnretainedValue()
    withExtendedLifetime(callback) { callback.body() }
}
