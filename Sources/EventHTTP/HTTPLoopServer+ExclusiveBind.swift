import CLibevent
import Glibc

extension HTTPLoopServer {
    /// A listener on `address` that no other process may already serve, which the server's other
    /// loops can still join with `SO_REUSEPORT`.
    ///
    /// Linux lets every socket with `SO_REUSEPORT` (of the same user) bind a port that sockets
    /// with `SO_REUSEPORT` hold, so a second server would silently take half the connections. This
    /// socket is bound without it, which fails with EADDRINUSE whenever anything holds the port;
    /// only then is `SO_REUSEPORT` set, before `listen`, for the other loops. Returns nil with
    /// `errno` set on failure.
    func exclusiveListener(address: UnsafePointer<sockaddr>, length: socklen_t, backlog: Int) -> OpaquePointer? {
        let descriptor = socket(
            Int32(address.pointee.sa_family), Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        var on: Int32 = 1
        let size = socklen_t(MemoryLayout<Int32>.size)
        guard setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &on, size) == 0,
            Glibc.bind(descriptor, address, length) == 0,
            setsockopt(descriptor, SOL_SOCKET, SO_REUSEPORT, &on, size) == 0
        else {
            let error = errno
            close(descriptor)
            errno = error
            return nil
        }
        let flags = LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC
        guard let listener = evconnlistener_new(base, nil, nil, UInt32(flags), Int32(backlog), descriptor) else {
            let error = errno
            close(descriptor)
            errno = error
            return nil
        }
        return listener
    }
}
