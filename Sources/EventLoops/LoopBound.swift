/// An object that lives on one event loop, passed between threads: it is reached only through its
/// loop (`withValue` runs there), or directly by code already on that loop (`valueOnLoop`).
public struct LoopBound<Value: AnyObject>: @unchecked Sendable {
    public let loop: EventLoop
    private let value: Value

    /// Wraps `value`, which belongs to `loop`.
    public init(_ value: Value, on loop: EventLoop) {
        self.value = value
        self.loop = loop
    }

    /// Makes the value on `loop`'s thread (its watches and timers belong there).
    public static func make(on loop: EventLoop, _ make: @escaping @Sendable () -> Value) async -> LoopBound<Value> {
        await withCheckedContinuation { continuation in
            loop.execute { continuation.resume(returning: LoopBound(make(), on: loop)) }
        }
    }

    /// Runs `body` with the value on its loop's thread.
    public func withValue(_ body: @escaping @Sendable (Value) -> Void) {
        let box = self
        loop.execute { body(box.value) }
    }

    /// The value, for code running on its loop's thread.
    public var valueOnLoop: Value { value }
}
