import CLibevent
import CSupport
import EventLoops
import Glibc
import LockTracing
import Synchronization

/// The HTTP server's part on one loop: the loop's `SO_REUSEPORT` listener and connections, and the
/// state machine that governs them.
///
/// Everything but `requestShutdown` and the published counts runs on the loop's thread.
final class HTTPLoopServer: @unchecked Sendable {
    /// The loop whose thread runs this part.
    let loop: EventLoop
    /// The loop's `event_base`, kept here for the connections (one load less than `loop.base`).
    let base: OpaquePointer
    /// Wakes the loop to begin the shutdown (`requestShutdown`).
    private var shutdownEvent: OpaquePointer?
    private var drainTimer: OpaquePointer?
    private var sweepTimer: OpaquePointer?
    private var timeoutTimer: OpaquePointer?
    let handler: any HTTPHandler
    /// Hands libevent's messages on this loop to the handler (held weakly by the loop).
    private let messageRelay: LibeventMessageRelay
    /// The loop's position among the server's loops, handed to the handler with each request.
    let index: Int
    /// The loop's connection count and limit, requests in flight, throttled connections, back-off,
    /// the drain and lingering: this server feeds it what happens and carries out what it answers
    /// (each connection's own decisions are its `ConnectionMachine`'s).
    var machine: ConnectionStateMachine

    // The machine's questions (its non-mutating methods) are asked here, through `ask`: read from
    // the class's property, a non-mutating call copies the whole machine first (its layout is known
    // only at run time), even here (callgrind at 3e32b7d: 6 copies a POST from `frameAndDispatch`,
    // ~230 instructions each); asked of the property passed `inout`, it reads it in place.

    /// `question` asked of the machine in place.
    @inline(__always) private func ask<Answer>(_ question: (inout ConnectionStateMachine) -> Answer) -> Answer {
        question(&machine)
    }

    /// Whether answers carry `Connection: close` (a stop was requested).
    var isDraining: Bool { ask { $0.isDraining } }

    /// The machine's open connections, readable from any thread; counted in `limits`.
    let counter: ConnectionLimits.Counter
    /// The machine's requests in flight, readable from any thread.
    let inFlightCount = Atomic<Int>(0)
    private let limits: ConnectionLimits
    /// The last process-wide memory release this loop collected its pages for (`MemoryRelease`).
    private var memoryReleasesSeen = 0
    private let gracePeriodMilliseconds = Atomic<Int>(0)
    /// The listener and its back-off at the descriptor limit.
    let listenerGate: ListenerGate
    let wireSettings: WireSettings
    let wireCounters = WireCounters()
    /// The read event of each socket the machine has lingering, by descriptor.
    var lingerEvents: [Int32: OpaquePointer] = [:]
    /// The open connections.
    private var connections: [ConnectionStateMachine.ConnectionID: HTTPConnection] = [:]
    private var lastConnection: UInt = 0
    private var lastRequest: UInt = 0
    /// The `Date` of this loop's answers.
    let date = HTTPDateCache()
    /// When this loop writes its connections' answers (`WireSettings.writesAtTurnEnd`);
    /// `turnEnding` while `endTurn` writes them.
    var writeTiming: ConnectionMachine.WriteTiming
    /// The connections whose answers wait for the end of this turn of the loop, each once.
    var awaitingTurnEnd: [HTTPConnection] = []
    /// The bytes they had queued when they began to wait (`ConnectionMachine.turnWriteBytes`).
    var turnBytes = 0

    init(
        index: Int, configuration: HTTPServerConfiguration, limits: ConnectionLimits, handler: any HTTPHandler
    ) throws(HTTPServerError) {
        guard let loop = try? EventLoop() else { throw .cannotCreateLoop }
        self.loop = loop
        base = loop.base
        self.handler = handler
        messageRelay = LibeventMessageRelay(handler: handler, loop: index)
        self.index = index
        self.limits = limits
        counter = limits.makeCounter()
        listenerGate = ListenerGate(retryInterval: configuration.acceptRetryInterval)
        wireSettings = WireSettings(configuration)
        writeTiming = wireSettings.writesAtTurnEnd ? .atTurnEnd : .atOnce
        machine = ConnectionStateMachine(
            maxConnections: limits.maxConnections, budget: wireSettings.budget,
            acceptRetryInterval: configuration.acceptRetryInterval, acceptLogInterval: configuration.acceptLogInterval,
            lingerTimeout: wireSettings.timeout, bodyRate: wireSettings.bodyRate)
        let context = Unmanaged.passUnretained(self).toOpaque()
        shutdownEvent = event_new(base, -1, 0, shutdownCallback, context)
        drainTimer = event_new(base, -1, Int16(EV_PERSIST), drainCallback, context)
        sweepTimer = event_new(base, -1, Int16(EV_PERSIST), sweepCallback, context)
        var second = timeval(tv_sec: 1, tv_usec: 0)
        event_add(sweepTimer, &second)
        timeoutTimer = event_new(base, -1, Int16(EV_PERSIST), timeoutCallback, context)
        var interval = timeval(
            Self.timeoutCheckInterval(min(wireSettings.timeout, wireSettings.bodyRate?.gracePeriod ?? wireSettings.timeout)))
        event_add(timeoutTimer, &interval)
        // Weakly: the loop is this server's, and the handler (the application) holds the server.
        // Through a relay of its own, never the server: a weak reference gives its object a side
        // table, and every retain and release of it the slow path — the server's, ~30 a request
        // through each connection's unowned `server`, cost ~3,700 instructions per request.
        let relay = messageRelay
        loop.onLibeventMessage = { [weak relay] severity, message in relay?.send(severity: severity, message: message) }
    }

    /// How often time-outs (and body rates) are checked: a quarter of the time-out (or of the body
    /// rate's grace period, if shorter), between 10 ms and 1 s.
    static func timeoutCheckInterval(_ timeout: Duration) -> Duration {
        min(.seconds(1), max(.milliseconds(10), timeout / 4))
    }

    /// Opens this loop's listener on `address`; returns the port actually bound. The `exclusive`
    /// one (the first loop's) fails when another process serves the port.
    func bind(to address: UnsafePointer<sockaddr>, length: socklen_t, backlog: Int, description: (String, Int), exclusive: Bool)
        throws(HTTPServerError) -> Int
    {
        let flags = LEV_OPT_REUSEABLE | LEV_OPT_REUSEABLE_PORT | LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC
        guard
            let listener = exclusive
                ? exclusiveListener(address: address, length: length, backlog: backlog)
                : evconnlistener_new_bind(base, nil, nil, UInt32(flags), Int32(backlog), address, Int32(length))
        else {
            throw .cannotBind(host: description.0, port: description.1, reason: String(cString: strerror(errno)))
        }
        evconnlistener_set_cb(listener, acceptCallback, Unmanaged.passUnretained(self).toOpaque())
        listenerGate.attach(listener, base: base, server: self)
        var storage = sockaddr_storage()
        var size = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getsockname(evconnlistener_get_fd(listener), $0, &size)
            }
        }
        let family = storage.ss_family
        return withUnsafePointer(to: &storage) { pointer in
            if family == sa_family_t(AF_INET6) {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
        }
    }

    /// Runs the loop until shutdown has drained it, then frees it. Called on the loop's thread.
    func run() {
        loop.run(afterEachTurn: writeTiming == .atOnce ? nil : { [self] in endTurn() })
        // Work queued after the stop (which no longer wakes the loop) runs once, before the close.
        loop.runQueued()
        loop.close {
            awaitingTurnEnd.removeAll()
            closeAllConnections()
            endAllLingering()
            for event in [shutdownEvent, drainTimer, sweepTimer, timeoutTimer] { if let event { event_free(event) } }
            listenerGate.free()
        }
    }

    /// This loop's open connections, from any thread.
    var openConnections: Int { counter.open.load(ordering: .relaxed) }

    /// Asks the loop, from any thread, to stop accepting and to exit once its requests are answered
    /// or `gracePeriodSeconds` has passed.
    func requestShutdown(gracePeriodSeconds: Double) {
        gracePeriodMilliseconds.store(Int(gracePeriodSeconds * 1000), ordering: .sequentiallyConsistent)
        // While the loop is open: a stop requested after it closed must not touch its freed event.
        loop.whileOpen { event_active(shutdownEvent, 0, 0) }
    }

    /// A new connection on `socket` from `address`: counted (marked over the limit when the server
    /// already holds `maxConnections`) and watched.
    fileprivate func accept(socket: Int32, address: UnsafeMutablePointer<sockaddr>?) {
        var on: Int32 = 1
        setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        lastConnection += 1
        let id = ConnectionStateMachine.ConnectionID(rawValue: lastConnection)
        let now = ContinuousClock.now
        let action = machine.accepted(openOnServer: limits.total(), now: now)
        guard case .admitted(let overLimit, let failures) = action else { return }
        if let failures { run(.backoff(.reportResumed(failures: failures))) }
        let state = ask { $0.connection(overLimit: overLimit, now: now) }
        guard
            let connection = HTTPConnection(id: id, socket: socket, clientAddress: peerAddress(address), server: self, state: state),
            connection.start(base: base)
        else {
            machine.connectionClosed(requestsInFlight: 0, throttled: false)
            close(socket)
            publishConnections()
            return
        }
        connections[id] = connection
        publishConnections()
    }

    /// A connection closed (`HTTPConnection.close`) with `requestsInFlight` answers not written and
    /// its reading stopped or not (`throttled`): forgotten.
    func connectionClosed(_ connection: HTTPConnection, requestsInFlight: Int, throttled: Bool) {
        connections.removeValue(forKey: connection.id)
        machine.connectionClosed(requestsInFlight: requestsInFlight, throttled: throttled)
        publishInFlight()
        publishConnections()
    }

    /// A connection handed a request to the handler.
    func requestStarted() {
        machine.requestStarted()
        publishInFlight()
    }

    /// A connection's answer was written.
    func requestCompleted() {
        machine.requestCompleted()
        publishInFlight()
    }

    func nextRequestID() -> ConnectionStateMachine.RequestID {
        lastRequest += 1
        return ConnectionStateMachine.RequestID(rawValue: lastRequest)
    }

    /// A connection's reading stopped or resumed (`HTTPConnection.run`): counted and published.
    func readingChanged(_ reading: ConnectionMachine.Action) {
        machine.readingChanged(reading)
        wireCounters.throttledConnections.store(ask { $0.throttledCount }, ordering: .relaxed)
    }

    /// Bytes were read into a connection's input, which holds `bufferedBytes` now.
    func noteInput(bufferedBytes: Int) {
        if bufferedBytes >= ConnectionStateMachine.largeBufferBytes { machine.bufferSeen(bytes: bufferedBytes) }
        wireCounters.noteInput(bufferedBytes)
    }

    /// A connection's output holds `pendingBytes` not written yet.
    func noteOutput(pendingBytes: Int) {
        wireCounters.noteOutput(pendingBytes)
        if pendingBytes >= ConnectionStateMachine.largeBufferBytes { machine.bufferSeen(bytes: pendingBytes) }
    }

    /// Publishes the requests in flight for other threads.
    func publishInFlight() {
        inFlightCount.store(ask { $0.requestsInFlight }, ordering: .relaxed)
    }

    /// Publishes the machine's connection figures for other threads.
    func publishConnections() {
        let (open, throttled) = ask { ($0.openConnections, $0.throttledCount) }
        counter.open.store(open, ordering: .relaxed)
        wireCounters.throttledConnections.store(throttled, ordering: .relaxed)
    }

    fileprivate func sweep() {
        if machine.sweep() { todo_release_free_memory() }
        MemoryRelease.collectIfRequested(since: &memoryReleasesSeen)
    }

    fileprivate func checkTimeouts() {
        let now = ContinuousClock.now
        // Each connection's machine decides, bodies first (a refusal's writes are activity); the
        // table is not iterated while what a connection does changes it.
        var due: [(connection: HTTPConnection, action: ConnectionMachine.Action)] = []
        for connection in connections.values {
            let action = connection.bodyRateChecked(now: now)
            if action != .nothing { due.append((connection, action)) }
        }
        for (connection, action) in due { connection.run(action) }
        let timeout = wireSettings.timeout
        var expired: [HTTPConnection] = []
        for connection in connections.values where connection.isExpired(now: now, timeout: timeout) { expired.append(connection) }
        for connection in expired { connection.close() }
    }

    fileprivate func beginShutdown() {
        let grace = Duration.milliseconds(gracePeriodMilliseconds.load(ordering: .sequentiallyConsistent))
        let awaiting = awaitingAnswers
        for action in machine.shutdownRequested(now: .now, gracePeriod: grace, awaitingAnswers: awaiting) { run(action) }
    }

    fileprivate func checkDrained() {
        let awaiting = awaitingAnswers
        if let action = machine.tick(now: .now, awaitingAnswers: awaiting) { run(action) }
    }

    /// Whether some connection has a request whose head arrived and whose answer is not written yet.
    private var awaitingAnswers: Bool {
        connections.values.contains { $0.ask { $0.awaitsAnswer } }
    }

    /// `accept(2)` failed with `error` (`ListenerGate`).
    func acceptFailed(error: Int32) {
        for action in machine.acceptFailed(error: error, now: .now) { run(action) }
    }

    /// The back-off's retry interval is over (`ListenerGate`).
    func acceptRetryDue() {
        for action in machine.acceptRetryDue() { run(action) }
    }

    /// Carries out what the loop's machine said.
    private func run(_ action: ConnectionStateMachine.Action) {
        switch action {
        case .backoff(let action):
            listenerGate.perform(action, server: self)
        case .stopAccepting:
            if let listener = listenerGate.listener {
                listenerGate.detach()
                evconnlistener_free(listener)
            }
        case .markDraining:
            // Each connection's machine frames every answer from now on with `Connection: close`
            // itself: its shell tells it `isDraining`.
            break
        case .armDrainTimer(let interval):
            var tick = timeval(interval)
            event_add(drainTimer, &tick)
        case .closeServerAndExit:
            event_del(drainTimer)
            // Answers queued earlier in this turn go out before their connections close.
            endTurn()
            closeAllConnections()
            loop.stopRunning()
        }
    }

    private func closeAllConnections() {
        for connection in Array(connections.values) { connection.close() }
        if let listener = listenerGate.listener {
            listenerGate.detach()
            evconnlistener_free(listener)
        }
    }

    /// `address:port` of a peer (`127.0.0.1:50312`, `[::1]:50312`).
    private func peerAddress(_ address: UnsafeMutablePointer<sockaddr>?) -> String {
        guard let address else { return "" }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let port: UInt16
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            port = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { inet in
                var addr = inet.pointee.sin_addr
                inet_ntop(AF_INET, &addr, &text, socklen_t(text.count))
                return UInt16(bigEndian: inet.pointee.sin_port)
            }
            return String(cString: text) + ":" + String(port)
        case AF_INET6:
            port = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { inet in
                var addr = inet.pointee.sin6_addr
                inet_ntop(AF_INET6, &addr, &text, socklen_t(text.count))
                return UInt16(bigEndian: inet.pointee.sin6_port)
            }
            return "[" + String(cString: text) + "]:" + String(port)
        default:
            return ""
        }
    }
}

extension timeval {
    init(seconds: Double) {
        let whole = seconds.rounded(.down)
        self.init(tv_sec: Int(whole), tv_usec: Int((seconds - whole) * 1_000_000))
    }

    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self.init(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
    }
}

private func server(_ context: UnsafeMutableRawPointer?) -> HTTPLoopServer {
    Unmanaged<HTTPLoopServer>.fromOpaque(context!).takeUnretainedValue()
}

private let acceptCallback:
    @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<sockaddr>?, Int32, UnsafeMutableRawPointer?) -> Void = {
        _, socket, address, _, context in
        server(context).accept(socket: socket, address: address)
    }

private let shutdownCallback: @convention(c) (Int32, Int16, UnsafeMutableRawPointer?) -> Void = { _, _, context in
    server(context).beginShutdown()
}

private let sweepCallback: @convention(c) (Int32, Int16, UnsafeMutableRawPointer?) -> Void = { _, _, context in
    server(context).sweep()
}

private let timeoutCallback: @convention(c) (Int32, Int16, UnsafeMutableRawPointer?) -> Void = { _, _, context in
    server(context).checkTimeouts()
}

private let drainCallback: @convention(c) (Int32, Int16, UnsafeMutableRawPointer?) -> Void = { _, _, context in
    server(context).checkDrained()
}

/// The server-wide connection limit, shared by the loops: each checks the total at accept.
final class ConnectionLimits: Sendable {
    /// One loop's open connections, readable from any thread.
    final class Counter: Sendable {
        let open = Atomic<Int>(0)
    }

    let maxConnections: Int
    private let counters = Mutex<[Counter]>([])

    init(maxConnections: Int) {
        self.maxConnections = maxConnections
    }

    /// A counter for one more loop.
    func makeCounter() -> Counter {
        let counter = Counter()
        counters.withTracedLock { $0.append(counter) }
        return counter
    }

    /// Open connections across the loops.
    func total() -> Int {
        counters.withTracedLock { $0.reduce(0) { $0 + $1.open.load(ordering: .relaxed) } }
    }
}

/// Hands libevent's messages on one loop to the handler.
private final class LibeventMessageRelay: Sendable {
    let handler: any HTTPHandler
    let loop: Int

    init(handler: any HTTPHandler, loop: Int) {
        self.handler = handler
        self.loop = loop
    }

    func send(severity: Int32, message: String) {
        handler.serverEvent(.libeventMessage(loop: loop, severity: severity, message: message))
    }
}
