import CLibevent
import Glibc

/// Lingering close for refused streams, carried out: the machine decides when a socket lingers,
/// for how long and when it is closed (`ConnectionStateMachine+Lingering`); the loop half-closes
/// the socket (the answer is already written), reads and discards what still arrives into a fixed
/// buffer, and closes it when the machine says so.
extension HTTPLoopServer {
    /// Takes `socket` over to linger on it; false (the caller closes it) when the machine says not to.
    func linger(socket: Int32) -> Bool {
        shutdown(socket, Int32(SHUT_WR))
        let context = Unmanaged.passUnretained(self).toOpaque()
        guard let event = event_new(base, socket, Int16(EV_READ | EV_PERSIST), lingerCallback, context) else { return false }
        switch machine.lingerStarted(ConnectionStateMachine.LingerID(rawValue: socket), now: .now) {
        case .close:
            event_free(event)
            return false
        case .linger(let idleTimeout):
            lingerEvents[socket] = event
            var idle = timeval(idleTimeout)
            event_add(event, &idle)
            return true
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
    Unmanaged<HTTPLoopServer>.fromOpaque(context!).takeUnretainedValue().lingerReady(socket, timedOut: what & Int16(EV_TIMEOUT) != 0)
}
