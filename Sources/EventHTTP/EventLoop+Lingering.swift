import CLibevent
import Glibc

/// Lingering close for refused streams (as nginx does): the client may still be sending the body
/// or the rest of the stream the server refused. Closing a socket with unread input makes the
/// kernel send a reset, which can destroy the refusal before the client reads it. So when evhttp
/// frees such a connection, the loop keeps a duplicate of its socket, half-closes it (the answer
/// is already written), and reads and discards what still arrives, into a fixed buffer, until the
/// client closes, is idle for `lingerIdleSeconds`, or `timeoutSeconds` have passed in all.
extension EventLoop {
    /// Starts lingering on the socket of `bufferEvent`, which evhttp is about to free.
    func linger(on bufferEvent: OpaquePointer) {
        let socket = bufferevent_getfd(bufferEvent)
        guard socket >= 0, let base = bufferevent_get_base(bufferEvent) else { return }
        let copy = dup(socket)
        guard copy >= 0 else { return }
        shutdown(copy, Int32(SHUT_WR))
        let context = Unmanaged.passUnretained(self).toOpaque()
        guard let event = event_new(base, copy, Int16(EV_READ | EV_PERSIST), lingerCallback, context) else {
            close(copy)
            return
        }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        lingering[copy] = Lingering(event: event, deadline: now.tv_sec + Int(wireSettings.timeoutSeconds.rounded(.up)))
        var idle = timeval(seconds: min(wireSettings.timeoutSeconds, lingerIdleSeconds))
        event_add(event, &idle)
    }

    /// Discards what arrived; ends the linger at end of file, an error, idleness or the deadline.
    fileprivate func lingerReady(_ socket: Int32, timedOut: Bool) {
        guard let entry = lingering[socket] else { return }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        var ended = false
        var discarded = 0
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 16 << 10) { scratch in
            while true {
                let count = recv(socket, scratch.baseAddress, scratch.count, Int32(MSG_DONTWAIT))
                if count > 0 {
                    discarded += count
                    continue
                }
                if count < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { break }
                ended = true
                break
            }
        }
        // Idle means nothing arrived in the whole pause (a busy loop may see the time-out first).
        if ended || now.tv_sec >= entry.deadline || (timedOut && discarded == 0) { endLinger(socket) }
    }

    private func endLinger(_ socket: Int32) {
        guard let entry = lingering.removeValue(forKey: socket) else { return }
        event_free(entry.event)
        close(socket)
    }

    /// Ends every linger (the loop is exiting).
    func endAllLingering() {
        for socket in Array(lingering.keys) { endLinger(socket) }
    }
}

/// One socket being drained after a refusal.
struct Lingering {
    let event: OpaquePointer
    /// CLOCK_MONOTONIC second at which the socket is closed whatever arrives.
    let deadline: Int
}

/// Longest pause in a lingering client's sending before its socket is closed.
private let lingerIdleSeconds = 5.0

private let lingerCallback: @convention(c) (Int32, Int16, UnsafeMutableRawPointer?) -> Void = { socket, what, context in
    Unmanaged<EventLoop>.fromOpaque(context!).takeUnretainedValue().lingerReady(socket, timedOut: what & Int16(EV_TIMEOUT) != 0)
}
