import CLibevent
import Glibc

/// Lingering close for refused streams, carried out: the machine decides when a socket lingers,
/// for how long and when it is closed (`ConnectionStateMachine+Lingering`); the loop keeps a
/// duplicate of the socket evhttp frees, half-closes it (the answer is already written), reads and
/// discards what still arrives into a fixed buffer, and closes it when the machine says so.
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
        switch machine.lingerStarted(ConnectionStateMachine.LingerID(rawValue: copy), now: .now) {
        case .close:
            event_free(event)
            close(copy)
        case .linger(let idleTimeout):
            lingerEvents[copy] = event
            var idle = timeval(idleTimeout)
            event_add(event, &idle)
        }
    }

    /// Discards what arrived and tells the machine, which says whether to close.
    fileprivate func lingerReady(_ socket: Int32, timedOut: Bool) {
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
        let action = machine.lingerRead(
            ConnectionStateMachine.LingerID(rawValue: socket), now: .now, discardedBytes: discarded, ended: ended,
            idleTimedOut: timedOut)
        if action == .close { closeLingering(socket) }
    }

    private func closeLingering(_ socket: Int32) {
        guard let event = lingerEvents.removeValue(forKey: socket) else { return }
        event_free(event)
        close(socket)
    }

    /// Ends every linger (the loop is exiting).
    func endAllLingering() {
        for id in machine.endAllLingering() { closeLingering(id.rawValue) }
    }
}

private let lingerCallback: @convention(c) (Int32, Int16, UnsafeMutableRawPointer?) -> Void = { socket, what, context in
    Unmanaged<EventLoop>.fromOpaque(context!).takeUnretainedValue().lingerReady(socket, timedOut: what & Int16(EV_TIMEOUT) != 0)
}
