import CLibevent
import EventLoops
import Glibc
import LockTracing
import Synchronization

/// A multi-loop HTTP/1.1 server: `loopCount` threads, each running an `EventLoop` with the
/// server's part on it, its own listener on the port and its own connections (`HTTPLoopServer`,
/// `HTTPConnection`).
public final class HTTPServer: Sendable {
    private let configuration: HTTPServerConfiguration
    private let handler: any HTTPHandler
    private let state = Mutex<(servers: [HTTPLoopServer], threads: [pthread_t], started: Bool)>(([], [], false))

    private static let threading: Void = {
        signal(SIGPIPE, SIG_IGN)
        EventLoop.routeLibeventLog()
    }()

    public init(configuration: HTTPServerConfiguration, handler: any HTTPHandler) {
        self.configuration = configuration
        self.handler = handler
    }

    /// Binds every loop's listener, starts the loop threads and returns the bound port.
    @discardableResult
    public func start() throws(HTTPServerError) -> Int {
        _ = Self.threading
        let configuration = self.configuration
        let addresses = try resolve(configuration.host, port: configuration.port)
        defer { freeaddrinfo(addresses) }
        var port = configuration.port
        var servers: [HTTPLoopServer] = []
        let limits = ConnectionLimits(maxConnections: configuration.maxConnections)
        for index in 0..<max(1, configuration.loopCount) {
            let server = try HTTPLoopServer(index: index, configuration: configuration, limits: limits, handler: handler)
            let target = index == 0 ? addresses : try resolve(configuration.host, port: port)
            defer { if index > 0 { freeaddrinfo(target) } }
            port = try server.bind(
                to: target.pointee.ai_addr, length: target.pointee.ai_addrlen,
                backlog: configuration.backlog, description: (configuration.host, port), exclusive: index == 0)
            servers.append(server)
        }
        try state.withTracedLock { (state) throws(HTTPServerError) in
            guard !state.started else { throw .alreadyStarted }
            state.started = true
            state.servers = servers
            for server in servers {
                var thread = pthread_t()
                let context = Unmanaged.passRetained(server).toOpaque()
                pthread_create(
                    &thread, nil,
                    { context in
                        Unmanaged<HTTPLoopServer>.fromOpaque(context!).takeRetainedValue().run()
                        return nil
                    }, context)
                state.threads.append(thread)
            }
        }
        return port
    }

    /// Stops accepting on every loop; each exits once its requests are answered or the grace
    /// period is over. Safe from any thread, and more than once.
    public func shutdown(gracePeriodSeconds: Double = 10) {
        let servers = state.withTracedLock { $0.servers }
        for server in servers { server.requestShutdown(gracePeriodSeconds: gracePeriodSeconds) }
    }

    /// Connections open across the loops, counted from accept until they close (connections closed
    /// without a request leave the count within a second).
    public var openConnections: Int {
        state.withTracedLock { $0.servers }.reduce(0) { $0 + $1.openConnections }
    }

    /// Requests the handler has been given that are not finished (answered and written, or cut
    /// off by their connection's close), across the loops.
    public var requestsInFlight: Int {
        state.withTracedLock { $0.servers }.reduce(0) { $0 + $1.inFlightCount.load(ordering: .relaxed) }
    }

    /// What the framing and the connection budgets saw, across the loops.
    public var wireStatistics: WireStatistics {
        WireCounters.sum(state.withTracedLock { $0.servers }.map(\.wireCounters))
    }

    /// The libevent version the server runs on (`2.1.12-stable`).
    public static var libeventVersion: String { String(cString: event_get_version()) }

    /// Blocks until every loop thread has exited. Call it from one thread: later calls return at once.
    public func waitUntilStopped() {
        let threads = state.withTracedLock { state in
            defer { state.threads = [] }
            return state.threads
        }
        for thread in threads { pthread_join(thread, nil) }
    }

    private func resolve(_ host: String, port: Int) throws(HTTPServerError) -> UnsafeMutablePointer<addrinfo> {
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &result)
        guard status == 0, let result else {
            throw .cannotResolve(host: host, reason: String(cString: gai_strerror(status)))
        }
        return result
    }
}
