import CLibevent
import Glibc

/// One loop's listener with its accept back-off: at EMFILE/ENFILE the listener is disabled for a
/// retry interval instead of spinning on a readable listening socket, and the handler is told
/// (at most once per log interval) instead of libevent writing a warning to stderr per attempt.
/// Used on the loop's thread only.
final class ListenerGate {
    private(set) var listener: OpaquePointer?
    private var retryTimer: OpaquePointer?
    /// The back-off's retry interval, for the report (the back-off itself is in the server's machine).
    private let retryInterval: Duration

    init(retryInterval: Duration) {
        self.retryInterval = retryInterval
    }

    /// Takes charge of `listener` (already bound, its accept callback set) on `server`'s base.
    func attach(_ listener: OpaquePointer, base: OpaquePointer, server: HTTPLoopServer) {
        self.listener = listener
        evconnlistener_set_error_cb(listener, acceptErrorCallback)
        retryTimer = event_new(base, -1, 0, retryCallback, Unmanaged.passUnretained(server).toOpaque())
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

    /// The listener's part of what the loop's machine says of accepting (`HTTPLoopServer.run`).
    func perform(_ action: AcceptBackoff.Action, server: HTTPLoopServer) {
        switch action {
        case .pause(let retryAfter):
            guard let listener, let retryTimer else { return }
            evconnlistener_disable(listener)
            var interval = timeval(seconds: Double(retryAfter.components.seconds) + Double(retryAfter.components.attoseconds) / 1e18)
            event_add(retryTimer, &interval)
        case .resume:
            if let listener { evconnlistener_enable(listener) }
        case .reportPaused(let reason, let failures):
            let retry = retryInterval.components
            server.handler.serverEvent(
                .acceptPaused(
                    loop: server.index, reason: reason, failures: failures,
                    retryMilliseconds: Int(retry.seconds * 1000 + retry.attoseconds / 1_000_000_000_000_000)))
        case .reportResumed(let failures):
            // A connection was accepted after `failures` failed attempts: the episode is over.
            server.handler.serverEvent(.acceptResumed(loop: server.index, failures: failures))
        }
    }
}

/// libevent calls this with the listener's user data, its server (`evconnlistener_set_cb`).
private let acceptErrorCallback: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void = { listener, context in
    let error = errno
    let server = Unmanaged<HTTPLoopServer>.fromOpaque(context!).takeUnretainedValue()
    guard server.listenerGate.listener == listener else { return }
    server.acceptFailed(error: error)
}

private let retryCallback: @convention(c) (Int32, Int16, UnsafeMutableRawPointer?) -> Void = { _, _, context in
    let server = Unmanaged<HTTPLoopServer>.fromOpaque(context!).takeUnretainedValue()
    server.acceptRetryDue()
}
