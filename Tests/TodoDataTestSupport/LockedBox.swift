import Foundation

/// A value set on one thread and read on another.
final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value?

    func set(_ new: Value) { lock.withLock { value = new } }
    func get() -> Value? { lock.withLock { value } }
    func update(_ change: (Value?) -> Value) { lock.withLock { value = change(value) } }
}
