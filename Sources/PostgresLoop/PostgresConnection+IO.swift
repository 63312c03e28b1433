import CLibpq
import EventLoops

extension PostgresConnection {
    /// `PQconnectStartParams`, non-blocking, then `PQconnectPoll` on each readiness of the socket.
    func startConnecting() {
        // Keywords after the expanded `dbname` override the connection string's: `options` carries
        // the string's own options too.
        let keywords = ["dbname", "options"], values = [configuration.connectionString, sessionOptions]
        let started = withCStringArray(keywords) { keywords in
            withCStringArray(values) { values in PQconnectStartParams(keywords, values, 1) }
        }
        guard let started else { return connectFailed(clibpq_load_error().map { String(cString: $0) } ?? "out of memory") }
        connection = started
        guard PQstatus(started) != CONNECTION_BAD else { return connectFailed(errorMessage) }
        PQsetnonblocking(started, 1)
        PQsetNoticeReceiver(started, ignoreNotice, nil)
        pollConnecting(PGRES_POLLING_WRITING)
    }

    /// Watches the socket as `status` asks, or finishes the connect.
    private func pollConnecting(_ status: PostgresPollingStatusType) {
        guard let connection else { return }
        switch status {
        case PGRES_POLLING_OK:
            guard PQenterPipelineMode(connection) == 1 else { return connectFailed(errorMessage) }
            watchSocket(readable: true, writable: false)
            connected()
        case PGRES_POLLING_READING:
            watchSocket(readable: true, writable: false)
        case PGRES_POLLING_WRITING:
            watchSocket(readable: false, writable: true)
        default:
            connectFailed(errorMessage)
        }
    }

    /// Watches the connection's current socket (it changes when libpq tries another address).
    private func watchSocket(readable: Bool, writable: Bool) {
        guard let connection else { return }
        let socket = PQsocket(connection)
        guard socket >= 0 else { return lost("no socket") }
        if watch?.descriptor != socket {
            watch?.cancel()
            watch = FileWatch(loop: loop, descriptor: socket) { [unowned self] readable, writable in
                socketReady(readable: readable, writable: writable)
            }
            guard watch != nil else { return lost("cannot watch the socket") }
        }
        watch?.watch(readable: readable, writable: writable)
    }

    private func socketReady(readable: Bool, writable: Bool) {
        guard let connection else { return }
        if case .connecting = machine.phase {
            return pollConnecting(PQconnectPoll(connection))
        }
        if readable {
            guard PQconsumeInput(connection) != 0 else { return lost(errorMessage) }
            readResults()
            takeNotifications()
        }
        if flushPending || writable { flush() }
    }

    /// Takes every result libpq holds while requests wait for one, bounded by the state machine's
    /// count (an idle pipeline answers "not busy" with no result forever).
    private func readResults() {
        var nullsInARow = 0
        var any = false
        while let connection, machine.expectsResults, PQisBusy(connection) == 0 {
            guard let result = PQgetResult(connection) else {
                nullsInARow += 1
                if nullsInARow > 1 { break }
                continue
            }
            nullsInARow = 0
            if !any {
                any = true
                lastProgress = clock.now
            }
            let incoming = Self.incoming(from: result)
            PQclear(result)
            received(incoming)
        }
        if let connection, PQstatus(connection) == CONNECTION_BAD { lost(errorMessage) }
    }

    /// Hands over the notifications libpq has read (`LISTEN`), in the order they came.
    private func takeNotifications() {
        while let connection, let notification = PQnotifies(connection) {
            let channel = String(cString: notification.pointee.relname)
            PQfreemem(notification)
            onNotification?(channel)
        }
    }

    /// Sends one request as its own pipeline segment; false when it was no longer there to send.
    func send(_ id: PostgresConnectionStateMachine.RequestID, prepare: Bool) -> Bool {
        guard let connection, let request = requests[id] else { return false }
        if onPhases != nil {
            requests[id]?.sent = clock.now
            requests[id]?.ahead = machine.inFlightCount - 1
        }
        var ok: Int32 = 1
        switch request.query {
        case .prepared(let statement):
            if prepare { ok = PQsendPrepare(connection, statement.name, statement.sql, 0, nil) }
            if ok == 1 {
                ok = withCStringArray(request.parameters) { values in
                    PQsendQueryPrepared(connection, statement.name, Int32(request.parameters.count), values, nil, nil, 0)
                }
            }
        case .unprepared(let sql):
            ok = withCStringArray(request.parameters) { values in
                PQsendQueryParams(connection, sql, Int32(request.parameters.count), nil, values, nil, nil, 0)
            }
        }
        if ok == 1 { ok = PQpipelineSync(connection) }
        guard ok == 1 else {
            lost(errorMessage)
            return false
        }
        return true
    }

    /// Writes what libpq buffered; waits for writable when the socket is full.
    func flush() {
        guard let connection, machine.phase == .ready else { return }
        switch PQflush(connection) {
        case 0: flushPending = false
        case 1: flushPending = true
        default: return lost(errorMessage)
        }
        watch?.watch(readable: true, writable: flushPending)
    }

    /// Stops watching first (a new socket may reuse the number), then closes.
    func dropConnection() {
        watch?.cancel()
        watch = nil
        flushPending = false
        if let connection { PQfinish(connection) }
        connection = nil
    }

    static func incoming(from result: OpaquePointer) -> PostgresConnectionStateMachine.Incoming {
        switch PQresultStatus(result) {
        case PGRES_TUPLES_OK, PGRES_COMMAND_OK, PGRES_EMPTY_QUERY:
            return .rows(rows(from: result))
        case PGRES_PIPELINE_SYNC:
            return .sync
        case PGRES_PIPELINE_ABORTED:
            return .aborted
        default:
            func field(_ code: Character) -> String? {
                PQresultErrorField(result, Int32(code.asciiValue!)).map { String(cString: $0) }
            }
            return .error(
                ServerError(
                    sqlState: field("C") ?? "XX000",
                    message: field("M") ?? String(cString: PQresultErrorMessage(result)).trimmingTrailingNewlines,
                    detail: field("D")))
        }
    }

    static func rows(from result: OpaquePointer) -> PostgresRows {
        let rowCount = Int(PQntuples(result)), columnCount = Int(PQnfields(result))
        let columns = (0..<columnCount).map { String(cString: PQfname(result, Int32($0))) }
        var values: [String?] = []
        values.reserveCapacity(rowCount * columnCount)
        for row in 0..<Int32(rowCount) {
            for column in 0..<Int32(columnCount) {
                if PQgetisnull(result, row, column) == 1 {
                    values.append(nil)
                } else {
                    let length = Int(PQgetlength(result, row, column))
                    let bytes = UnsafeRawPointer(PQgetvalue(result, row, column)!).assumingMemoryBound(to: UInt8.self)
                    values.append(String(decoding: UnsafeBufferPointer(start: bytes, count: length), as: UTF8.self))
                }
            }
        }
        let affected = PQcmdTuples(result).map { Int(String(cString: $0)) ?? 0 } ?? 0
        return PostgresRows(columns: columns, values: values, affectedRows: affected)
    }
}

/// Calls `body` with NUL-terminated copies of `strings` (nil stays a null pointer).
func withCStringArray<R>(_ strings: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
    var buffer: [CChar] = []
    var offsets: [Int?] = []
    offsets.reserveCapacity(strings.count)
    for string in strings {
        guard let string else {
            offsets.append(nil)
            continue
        }
        offsets.append(buffer.count)
        buffer.append(contentsOf: string.utf8CString)
    }
    return buffer.withUnsafeBufferPointer { base in
        let pointers: [UnsafePointer<CChar>?] = offsets.map { $0.map { base.baseAddress! + $0 } } + [nil]
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}

/// Notices (warnings, `RAISE NOTICE`) would go to stderr otherwise.
private let ignoreNotice: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?) -> Void = { _, _ in }
