import Foundation

/// Tells the current time; injected so that interactors are tested with a fixed clock.
public protocol TodoClock: Sendable {
    func now() -> Timestamp
}

/// The system's wall clock.
public struct SystemClock: TodoClock {
    public init() {}

    public func now() -> Timestamp {
        Timestamp(millisecondsSinceEpoch: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)))
    }
}
