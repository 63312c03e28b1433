import CLibevent
import EventLoops
import CSupport
import Glibc
import LockTracing
import Synchronization

/// One libevent loop: its own `event_base`, `evhttp` and `SO_REUSEPORT` listener, run on one thread.
///
/// Everything but `requestShutdown` runs on the loop's own thread.
final class EventLoop: @unchecked Sendable {
    let base: OpaquePointer
    private var http: OpaquePointer?
    private var bound: OpaquePointer?
    private var wakeEvent: OpaquePointer?
    private var drainTimer: OpaquePointer?
    /// Work queued by `enqueue` from other threads (`LoopExecutor`, `LoopHandle`).
    let tasks: LoopTasks
    let handler: any HTTPHandler
    /// The loop's position among the server's loops, handed to the handler with each request.
    let index: Int
    /// Accepted connections, their sessions, requests in flight, budgets, back-off and the drain:
    /// the loop feeds it what happens and carries out what it answers (`EventLoop+StateMachine`).
    var machine: ConnectionStateMachine
    /// The machine's open connections, readable from any thread; counted in `limits`.
    let counter: ConnectionLimits.Counter
    /// The machine's requests in flight, readable from any thread.
    let inFlightCount = Atomic<Int>(0)
    private let limits: ConnectionLimits
    private var sweepTimer: OpaquePointer?
    /// The last process-wide memory release this loop collected its pages for (`MemoryRelease`).
    private var memoryReleasesSeen = 0
    private let gracePeriodMilliseconds = Atomic<Int>(0)
    /// The listener and its back-off at the descriptor limit.
    let listenerGate: ListenerGate
    /// Framing and budget of each open connection, by its input and by its output buffer.
    var wires: [OpaquePointer: WireConnection] = [:]
    var wireOfBufferEvent: [OpaquePointer: WireConnection] = [:]
    let wireSettings: WireSettings
    /// Set while the loop edits an input buffer itself.
    var editingInput = false
    /// Set once shutdown began: answers then carry `Connection: close`.
    let draining = DrainSignal()
    let wireCounters = WireCounters()
    /// The read event of each socket the machine has lingering, by descriptor.
    var lingerEvents: [Int32: OpaquePointer] = [:]

    init(
        index: Int, configuration: HTTPServerConfiguration, limits: ConnectionLimits, handler: any HTTPHandler
    ) throws(HTTPServerError) {
        guard let base = event_base_new() else { throw .cannotCreateLoop }
        guard let tasks = LoopTasks(base: base) else {
            event_base_free(base)
            throw .cannotCreateLoop
        }
        guard let http = evhttp_new(base) else {
            tasks.close()
            event_base_free(base)
            throw .cannotCreateLoop
        }
        self.base = base
        self.tasks = tasks
        self.http = http
        self.handler = handler
        self.index = index
        self.limits = limits
        counter = limits.makeCounter()
        listenerGate = ListenerGate(retryInterval: configuration.acceptRetryInterval)
        wireSettings = WireSettings(configuration)
        machine = ConnectionStateMachine(
            maxConnections: limits.maxConnections, budget: wireSettings.budget,
            acceptRetryInterval: configuration.acceptRetryInterval, acceptLogInterval: configuration.acceptLogInterval,
            lingerTimeout: .milliseconds(Int64((configuration.timeoutSeconds * 1000).rounded(.up))))
        // Every method evhttp knows, plus bit 15, which libevent 2.1.12 gives a method it does not
        // know: so unknown methods reach the router (405 with Allow) instead of evhttp's HTML 501.
        let everyMethod: UInt16 = 0xFFFF
        evhttp_set_allowed_methods(http, everyMethod)
        // The framing refuses a larger body from its headers (or its chunk sizes) before evhttp
        // reads it; evhttp's own limit is the same, as a backstop. No lingering close: evhttp
        // would read (and discard) a refused body to its end before answering.
        evhttp_set_max_body_size(http, Int(configuration.maxBodyBytes))
        // Past the framing's own head limit, so that the framing answers first (431).
        evhttp_set_max_headers_size(http, Int(configuration.maxHeaderBytes) + 4096)
        var timeout = timeval(seconds: configuration.timeoutSeconds)
        evhttp_set_timeout_tv(http, &timeout)
        evhttp_set_default_content_type(http, nil)
        let context = Unmanaged.passUnretained(self).toOpaque()
        evhttp_set_gencb(http, requestCallback, context)
        wakeEvent = event_new(base, -1, 0, wakeCallback, context)
        drainTimer = event_new(base, -1, Int16(EV_PERSIST), drainCallback, context)
        evhttp_set_bevcb(http, acceptCallback, context)
        sweepTimer = event_new(base, -1, Int16(EV_PERSIST), sweepCallback, context)
        var second = timeval(tv_sec: 1, tv_usec: 0)
        event_add(sweepTimer, &second)
    }

    /// Opens this loop's listener on `address`; returns the port actually bound. The `exclusive`
    /// one (the first loop's) fails when another process serves the port.
    func bind(to address: UnsafePointer<sockaddr>, length: socklen_t, backlog: Int, description: (String, Int), exclusive: Bool)
        throws(HTTPServerError) -> Int
    {
        let flags = LEV_OPT_REUSEABLE | LEV_OPT_REUSEABLE_PORT | LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC
        guard let listener = exclusive
            ? exclusiveListener(address: address, length: length, backlog: backlog)
            : evconnlistener_new_bind(base, nil, nil, UInt32(flags), Int32(backlog), address, Int32(length))
        else {
            throw .cannotBind(host: description.0, port: description.1, reason: String(cString: strerror(errno)))
        }
        bound = evhttp_bind_listener(http, listener)
        listenerGate.attach(listener, base: base, loop: self)
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
        bindCurrentThread()
        event_base_dispatch(base)
        tasks.close()
        if let http { evhttp_free(http) }
        endAllLingering()
        if let wakeEvent { event_free(wakeEvent) }
        if let drainTimer { event_free(drainTimer) }
        if let sweepTimer { event_free(sweepTimer) }
        listenerGate.free()
        event_base_free(base)
    }

    /// This loop's open connections, from any thread.
    var openConnections: Int { counter.open.load(ordering: .relaxed) }

    /// Asks the loop, from any thread, to stop accepting and to exit once its requests are answered
    /// or `gracePeriodSeconds` has passed.
    func requestShutdown(gracePeriodSeconds: Double) {
        gracePeriodMilliseconds.store(Int(gracePeriodSeconds * 1000), ordering: .sequentiallyConsistent)
        // Under the tasks lock: `run` clears the tasks before it frees the wake event, so a stop
        // requested after the loop has drained and exited is a no-op instead of a use after free.
        tasks.whileOpen { event_active(wakeEvent, 0, 0) }
    }

    fileprivate func handle(_ request: OpaquePointer) {
        let session = evhttp_request_get_connection(request)
        let bufferEvent = session.flatMap { evhttp_connection_get_bufferevent($0) }
        let start = machine.requestStarted(
            ConnectionStateMachine.RequestID(request), session: session.map(ConnectionStateMachine.SessionID.init),
            connection: bufferEvent.map(ConnectionStateMachine.ConnectionID.init))
        inFlightCount.store(machine.requestsInFlight, ordering: .relaxed)
        let context = Unmanaged.passUnretained(self).toOpaque()
        evhttp_request_set_on_complete_cb(request, completeCallback, context)
        if start.watchClose, let session { evhttp_connection_set_closecb(session, closeCallback, context) }
        var parsed = HTTPRequest(evhttpRequest: request)
        parsed.connectionOverLimit = start.refuse
        let responder = HTTPResponder(
            request: request, isHead: parsed.method == .head, loopIndex: index, closeConnection: parsed.hasUnreadBody,
            draining: draining)
        handler.handle(parsed, responder: responder)
    }

    /// Registers the evhttp connection of `bufferEvent` (its callback argument once evhttp has set
    /// it up), so that its close is reported even if it never completes a request.
    func trackConnection(of bufferEvent: OpaquePointer) {
        var argument: UnsafeMutableRawPointer?
        bufferevent_getcb(bufferEvent, nil, nil, nil, &argument)
        let id = ConnectionStateMachine.ConnectionID(bufferEvent)
        guard let argument, machine.connections[id] != nil else { return }
        let session = OpaquePointer(argument)
        guard !machine.knows(ConnectionStateMachine.SessionID(session)),
            evhttp_connection_get_bufferevent(session) == bufferEvent,
            machine.sessionStarted(ConnectionStateMachine.SessionID(session), on: id)
        else { return }
        evhttp_connection_set_closecb(session, closeCallback, Unmanaged.passUnretained(self).toOpaque())
    }

    fileprivate func closed(_ session: OpaquePointer) {
        let closed = machine.connectionClosed(ConnectionStateMachine.SessionID(session))
        inFlightCount.store(machine.requestsInFlight, ordering: .relaxed)
        guard let closed else { return }
        let bufferEvent = closed.connection.pointer
        if closed.linger { linger(on: bufferEvent) }
        forgetWire(bufferEvent)
        publishConnections()
    }

    /// A new connection: makes its bufferevent, counts it, and marks it over the limit when the
    /// server already holds `maxConnections` (after sweeping out the ones closed unseen).
    fileprivate func acceptConnection() -> OpaquePointer? {
        guard let bufferEvent = bufferevent_socket_new(base, -1, Int32(BEV_OPT_CLOSE_ON_FREE.rawValue)) else { return nil }
        let id = ConnectionStateMachine.ConnectionID(bufferEvent)
        var action = machine.accepted(id, openOnServer: limits.total())
        if action == .sweepFirst {
            sweep()
            action = machine.accepted(id, openOnServer: limits.total(), afterSweep: true)
        }
        if case .admitted(_, let failures?) = action { listenerGate.reportResumed(failures: failures, loop: self) }
        watchForWireErrors(bufferEvent)
        watchFraming(bufferEvent)
        publishConnections()
        return bufferEvent
    }

    /// Drops the connections evhttp closed without a request (idle time-outs, garbage, early
    /// hang-ups), which no callback reports: a connection lives while its bufferevent has an event
    /// in the loop or it has sent a request and is not closed.
    fileprivate func sweep() {
        var owners = Set<ConnectionStateMachine.ConnectionID>()
        withUnsafeMutablePointer(to: &owners) { pointer in
            _ = event_base_foreach_event(base, { _, event, argument in
                guard let event, event_get_fd(event) >= 0, let owner = event_get_callback_arg(event) else { return 0 }
                argument!.assumingMemoryBound(to: Set<ConnectionStateMachine.ConnectionID>.self).pointee.insert(
                    ConnectionStateMachine.ConnectionID(rawValue: UInt(bitPattern: owner)))
                return 0
            }, pointer)
        }
        let swept = machine.sweep(eventOwners: owners)
        for id in swept.dropped { forgetWire(id.pointer) }
        publishConnections()
        if swept.trimMemory { todo_release_free_memory() }
        MemoryRelease.collectIfRequested(since: &memoryReleasesSeen)
    }

    fileprivate func completed(_ request: OpaquePointer) {
        let bufferEvent = evhttp_request_get_connection(request).flatMap { evhttp_connection_get_bufferevent($0) }
        let reading = machine.requestCompleted(
            ConnectionStateMachine.RequestID(request), connection: bufferEvent.map(ConnectionStateMachine.ConnectionID.init))
        inFlightCount.store(machine.requestsInFlight, ordering: .relaxed)
        if let bufferEvent { apply(reading, to: bufferEvent) }
    }

    fileprivate func beginShutdown() {
        let grace = Duration.milliseconds(gracePeriodMilliseconds.load(ordering: .sequentiallyConsistent))
        for action in machine.shutdownRequested(now: .now, gracePeriod: grace) { perform(action) }
    }

    fileprivate func checkDrained() {
        if let action = machine.tick(now: .now) { perform(action) }
    }

    private func perform(_ action: ConnectionStateMachine.ShutdownAction) {
        switch action {
        case .stopAccepting:
            listenerGate.detach()
            if let bound, let http {
                evhttp_del_accept_socket(http, bound)
                self.bound = nil
            }
        case .markDraining:
            draining.active = true
        case .armDrainTimer(let interval):
            var tick = timeval(interval)
            event_add(drainTimer, &tick)
        case .closeServerAndExit:
            event_del(drainTimer)
            if let http {
                evhttp_free(http)
                self.http = nil
            }
            event_base_loopexit(base, nil)
        }
    }

    /// Publishes the machine's connection figures for other threads.
    func publishConnections() {
        counter.open.store(machine.openConnections, ordering: .relaxed)
        wireCounters.throttledConnections.store(machine.throttledCount, ordering: .relaxed)
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

private func loop(_ context: UnsafeMutableRawPointer?) -> EventLoop {
    Unmanaged<EventLoop>.fromOpaque(context!).takeUnretainedValue()
}

private let requestCallback: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void = { request, context in
    guard let request else { return }
    loop(context).handle(request)
}

private let completeCallback: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void = { request, context in
    guard let request else { return }
    loop(context).completed(request)
}

private let closeCallback: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void = { connection, context in
    guard let connection else { return }
    loop(context).closed(connection)
}

private let wakeCallback: @convention(c) (Int32, Int16, UnsafeMutableRawPointer?) -> Void = { _, _, context in
    loop(context).beginShutdown()
}

private let acceptCallback: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> OpaquePointer? = { _, context in
    loop(context).acceptConnection()
}

private let sweepCallback: @convention(c) (Int32, Int16, UnsafeMutableRawPointer?) -> Void = { _, _, context in
    loop(context).sweep()
}

private let drainCallback: @convention(c) (Int32, Int16, UnsafeMutableRawPointer?) -> Void = { _, _, context in
    loop(context).checkDrained()
}

/// The server-wide connection limit, shared by the loops: each checks the total at accept.
final class ConnectionLimits: Sendable {
    /// One loop's open connections (exact after its last sweep), readable from any thread.
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
