import CLibevent
import Glibc

/// One loop's listener with its accept back-off: at EMFILE/ENFILE the listener is disabled for a
/// retry interval instead of spinning on a readable listening socket, and the handler is told
/// (at most once per log interval) instead of libevent writing a warning to stderr per attempt.
/// Used on the loop's thread only.
final class ListenerGate {
    private(set) var listener: OpaquePointer?
    private var retryTimer: OpaquePointer?
    /// The back-off's retry interval, for the report (the back-off itself is in the loop's machine).
    private let retryInterval: Duration

    init(retryInterval: Duration) {
        self.retryInterval = retryInterval
    }

    /// Takes charge of `listener` (already bound, its accept callback set) on `loop`'s base.
    func attach(_ listener: OpaquePointer, base: OpaquePointer, loop: EventLoop) {
        self.listener = listener
        evconnlistener_set_error_cb(listener, acceptErrorCallback)
        retryTimer = event_new(base, -1, 0, retryCallback, Unmanaged.passUnretained(loop).toOpaque())
    }

    /// The listener is gone (shutdown closed it): never touch it again.
    func detach() {
        if let retryTimer { event_del(retryTimer) }
        listener = nil
    }

    /// Frees the timer; after the loop has exited.
    func free() {
        if let retryTimer { event_free(retryTimer) }
        retryTimer = nil
    }

    fileprivate func perform(_ actions: [AcceptBackoff.Action], loop: EventLoop) {
        for action in actions {
            switch action {
            case .pause(let retryAfter):
                guard let listener, let retryTimer else { continue }
                evconnlistener_disable(listener)
                var interval = timeval(seconds: Double(retryAfter.components.seconds) + Double(retryAfter.components.attoseconds) / 1e18)
                event_add(retryTimer, &interval)
            case .resume:
                if let listener { evconnlistener_enable(listener) }
            case .reportPaused(let reason, let failures):
                let retry = retryInterval.components
                loop.handler.serverEvent(
                    .acceptPaused(
                        loop: loop.index, reason: reason, failures: failures,
                        retryMilliseconds: Int(retry.seconds * 1000 + retry.attoseconds / 1_000_000_000_000_000)))
            case .reportResumed(let failures):
                reportResumed(failures: failures, loop: loop)
            }
        }
    }

    fileprivate func acceptFailed(error: Int32, loop: EventLoop) {
        perform(loop.machine.acceptFailed(error: error, now: .now), loop: loop)
    }

    fileprivate func retryDue(loop: EventLoop) {
        perform(loop.machine.acceptRetryDue(), loop: loop)
    }

    /// A connection was accepted after `failures` failed attempts: the episode is over.
    func reportResumed(failures: Int, loop: EventLoop) {
        loop.handler.serverEvent(.acceptResumed(loop: loop.index, failures: failures))
    }
}

extension EventLoop {
    /// Routes libevent's own log messages to the handler of the loop whose thread logs them
    /// (stderr, as libevent does, off the loops' threads). Process-wide: set once.
    static func routeLibeventLog() {
        event_set_log_callback(logCallback)
    }
}

/// libevent calls this with the listener's user data; the loop is found
/// through the calling thread, which is always the loop's own.
private let acceptErrorCallback: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void = { listener, _ in
    let error = errno
    guard let loop = EventLoop.current, loop.listenerGate.listener == listener else { return }
    loop.listenerGate.acceptFailed(error: error, loop: loop)
}

private let retryCallback: @convention(c) (Int32, Int16, UnsafeMutableRawPointer?) -> Void = { _, _, context in
    let loop = Unmanaged<EventLoop>.fromOpaque(context!).takeUnretainedValue()
    loop.listenerGate.retryDue(loop: loop)
}

private let logCallback: @convention(c) (Int32, UnsafePointer<CChar>?) -> Void = { severity, message in
    guard let message else { return }
    guard let loop = EventLoop.current else {
        let line = Array("[libevent] \(String(cString: message))\n".utf8)
        _ = line.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
        return
    }
    loop.handler.serverEvent(.libeventMessage(loop: loop.index, severity: severity, message: String(cString: message)))
}
