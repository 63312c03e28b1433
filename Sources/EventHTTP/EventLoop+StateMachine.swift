/// The identifiers the loop hands its `ConnectionStateMachine`: the addresses of libevent's and
/// evhttp's objects, unique while they are alive, as plain numbers.
extension ConnectionStateMachine.ConnectionID {
    init(_ bufferEvent: OpaquePointer) {
        self.init(rawValue: UInt(bitPattern: bufferEvent))
    }

    /// The bufferevent (only a key once the connection is closed: it may be freed).
    var pointer: OpaquePointer { OpaquePointer(bitPattern: rawValue)! }
}

extension ConnectionStateMachine.SessionID {
    init(_ connection: OpaquePointer) {
        self.init(rawValue: UInt(bitPattern: connection))
    }
}

extension ConnectionStateMachine.RequestID {
    init(_ request: OpaquePointer) {
        self.init(rawValue: UInt(bitPattern: request))
    }
}
