import CLibpq
import EventLoops
import Synchronization

extension PostgresConnection {
    /// Asks the server to cancel the statement it runs on this connection. libpq 15's `PQcancel`
    /// blocks (it opens a connection of its own; the non-blocking cancel API arrived in libpq 17), so
    /// it runs on a detached thread of its own, never on the loop. At most one is in flight per
    /// connection: a server that does not answer one (frozen) holds one thread, and the state
    /// machine drops the connection after `cancelGrace` anyway.
    func sendCancel() {
        guard let connection, cancelInFlight.trySet() else { return }
        guard let handle = PQgetCancel(connection) else {
            cancelInFlight.clear()
            return
        }
        let cancel = CancelHandle(handle), inFlight = cancelInFlight, sent = cancelsSent
        let started = DetachedThread.start {
            var message = [CChar](repeating: 0, count: 256)
            if PQcancel(cancel.handle, &message, Int32(message.count)) == 1 { sent.increment() }
            PQfreeCancel(cancel.handle)
            inFlight.clear()
        }
        if !started {
            PQfreeCancel(handle)
            cancelInFlight.clear()
        }
    }

    /// Cancel requests the server accepted on this connection.
    public var cancelCount: Int { cancelsSent.count }
}

/// libpq's cancel object, handed to the thread that sends the cancel (and alone uses it then).
private struct CancelHandle: @unchecked Sendable {
    let handle: OpaquePointer
    init(_ handle: OpaquePointer) { self.handle = handle }
}

/// A flag shared with the cancel thread: set by the loop when a cancel starts, cleared by the thread.
final class SharedFlag: Sendable {
    private let value = Atomic<Bool>(false)

    /// Sets the flag; false when it was set already.
    func trySet() -> Bool {
        value.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
    }

    func clear() { value.store(false, ordering: .releasing) }
}

/// A counter shared with the cancel thread.
final class SharedCounter: Sendable {
    private let value = Atomic<Int>(0)

    func increment() { value.add(1, ordering: .relaxed) }
    var count: Int { value.load(ordering: .relaxed) }
}
