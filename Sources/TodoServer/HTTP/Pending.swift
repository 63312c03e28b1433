/// An answer that is there now or comes later, on the loop thread that asked for it: what a
/// presenter returns to its view and the view to the router. The store behind a presenter answers
/// at once (in memory) or later on the same loop (a database): the one completion is at that
/// seam, where a `Promise` is fulfilled. A `Pending` is used once, by `map` or `whenReady`.
public enum Pending<Value> {
    case ready(Value)
    case later(Promise<Value>)

    /// The answer of a call that completes through a callback: `start` is handed the promise to
    /// fulfil, and the answer is ready when it was fulfilled before `start` returned.
    public init(_ start: (Promise<Value>) -> Void) {
        let promise = Promise<Value>()
        start(promise)
        if let value = promise.takeValue() { self = .ready(value) } else { self = .later(promise) }
    }

    /// The answer, transformed when it is there.
    public consuming func map<T>(_ transform: @escaping (consuming Value) -> T) -> Pending<T> {
        switch consume self {
        case .ready(let value): .ready(transform(value))
        case .later(let promise): .later(promise.map(transform))
        }
    }

    /// Hands the answer to `body` when it is there: at once if it is.
    public consuming func whenReady(_ body: @escaping (consuming Value) -> Void) {
        switch consume self {
        case .ready(let value): body(value)
        case .later(let promise): promise.whenReady(body)
        }
    }
}

/// Where a later answer lands: fulfilled once, on the loop thread that waits for it.
public final class Promise<Value> {
    private var value: Value?
    private var waiter: ((consuming Value) -> Void)?

    public init() {}

    /// Delivers the answer: to whoever waits for it, or kept until someone does.
    public func fulfil(_ value: consuming Value) {
        guard let waiter else {
            self.value = value
            return
        }
        self.waiter = nil
        waiter(value)
    }

    func takeValue() -> Value? {
        value.take()
    }

    func whenReady(_ body: @escaping (consuming Value) -> Void) {
        if let value = value.take() { return body(value) }
        waiter = body
    }

    func map<T>(_ transform: @escaping (consuming Value) -> T) -> Promise<T> {
        let next = Promise<T>()
        whenReady { next.fulfil(transform($0)) }
        return next
    }
}
