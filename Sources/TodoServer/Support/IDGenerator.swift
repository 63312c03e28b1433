import Foundation

/// Makes new to-do ids; injected so that tests can predict them.
public protocol IDGenerator: Sendable {
    func makeID() -> String
}

/// Random (version 4) UUIDs in lower case: never reused in practice.
public struct UUIDGenerator: IDGenerator {
    public init() {}

    public func makeID() -> String {
        UUID().uuidString.lowercased()
    }
}
