import LockTracing
import Synchronization

/// An answer that is there now or comes later, on the loop thread that asked for it: what a use
/// case returns to its presenter, the presenter to its view and the view to the router. A store in
/// memory answers at once (`.ready`, carried up by value); the journal or a database answers later
/// on the same loop (`.later`: each layer's transform waits in the promise). A `Pending` is used
/// once.
public enum Pending<Value> {
    case ready(Value)
    case later(Promise<Value>)

    /// The answer of a call that completes through a callback (the journal's writer, a database
    /// connection): `start` is handed a promise to fulfil, and the answer is ready when it was
    /// fulfilled before `start` returned. A store that answers at once returns `.ready` instead:
    /// no promise is made for it.
    @inline(__always)
    public init(_ start: (Promise<Value>) -> Void) {
        let promise = Promise<Value>()
        start(promise)
        if let value = promise.takeValue() { self = .ready(value) } else { self = .later(promise) }
    }

    /// The answer, transformed when it is there: at once if it is.
    @inline(__always)
    public consuming func map<T>(_ transform: @escaping (consuming Value) -> T) -> Pending<T> {
        switch consume self {
        case .ready(let value): .ready(transform(value))
        case .later(let promise): .later(promise.map(transform))
        }
    }

    /// The answer, transformed with `captured` when it is there. `transform` should capture
    /// nothing: what it needs comes in `captured`, so that an answer there now is transformed with
    /// no closure context allocated (one is made around `transform` only for a later answer).
    @inline(__always)
    public consuming func map<Captured, T>(
        with captured: Captured, _ transform: @escaping (consuming Value, Captured) -> T
    ) -> Pending<T> {
        switch consume self {
        case .ready(let value): .ready(transform(value, captured))
        case .later(let promise): .later(promise.map(with: captured, transform))
        }
    }

    /// Hands the answer to `body` when it is there: at once if it is.
    @inline(__always)
    public consuming func whenReady(_ body: @escaping (consuming Value) -> Void) {
        switch consume self {
        case .ready(let value): body(value)
        case .later(let promise): promise.whenReady(body)
        }
    }
}

/// Where a later answer lands: fulfilled once. On a server both ends are on the loop that asked;
/// a caller off the loops (a test, a tool) may be answered on the store's own thread while it
/// starts waiting, so the hand-over is under a lock (uncontended on a loop: a later answer is a
/// journal write or a database round trip, which the lock does not weigh on).
public class Promise<Value> {
    /// The answer, when it came before anyone waited for it (a change the journal refused at
    /// once). Kept out of line, behind a pointer: a stored `Value?` would make every promise's
    /// deinit look up `Optional<Value>`'s metadata at run time (~300 instructions), answer or not.
    private var kept: UnsafeMutablePointer<Value>?
    /// Who waits: a closure (`whenReady`), or a mapped promise and the function that hands it the
    /// answer (`map(with:)`: no closure context to allocate per layer).
    private var waiter: ((consuming Value) -> Void)?
    private var receiver: AnyObject?
    private var receive: ((AnyObject, consuming Value) -> Void)?
    private let handOver = Mutex<Void>(())

    public init() {}

    deinit {
        if let kept {
            kept.deinitialize(count: 1)
            kept.deallocate()
        }
    }

    /// Delivers the answer: to whoever waits for it, or kept until someone does. Handed straight
    /// to a waiter (the usual case: a later answer); only an answer that comes first is moved to
    /// a cell of its own.
    public final func fulfil(_ value: consuming Value) {
        if let waiting = takeWaiting() { return waiting.deliver(consume value) }
        let cell = UnsafeMutablePointer<Value>.allocate(capacity: 1)
        cell.initialize(to: value)
        // A waiter may have come between the two looks.
        let waiting = handOver.withTracedLock { _ -> HandedOver<Waiting<Value>?> in
            guard let waiting = takeWaitingLocked() else {
                kept = cell
                return HandedOver(nil)
            }
            return HandedOver(waiting)
        }.value
        guard let waiting else { return }
        defer { cell.deallocate() }
        waiting.deliver(cell.move())
    }

    @inline(__always)
    private func takeWaiting() -> Waiting<Value>? {
        handOver.withTracedLock { _ -> HandedOver<Waiting<Value>?> in HandedOver(takeWaitingLocked()) }.value
    }

    /// Under the lock: the waiter, taken.
    @inline(__always)
    private func takeWaitingLocked() -> Waiting<Value>? {
        if let receive, let receiver {
            self.receive = nil
            self.receiver = nil
            return Waiting(body: nil, receiver: receiver, receive: receive)
        }
        guard let waiter else { return nil }
        self.waiter = nil
        return Waiting(body: waiter, receiver: nil, receive: nil)
    }

    final func takeValue() -> Value? {
        let taken = handOver.withTracedLock { _ -> HandedOver<UnsafeMutablePointer<Value>?> in
            defer { kept = nil }
            return HandedOver(kept)
        }.value
        guard let taken else { return nil }
        defer { taken.deallocate() }
        return taken.move()
    }

    package final func whenReady(_ body: @escaping (consuming Value) -> Void) {
        guard let taken = takeKept(orWait: Waiting(body: body, receiver: nil, receive: nil)) else { return }
        defer { taken.deallocate() }
        body(taken.move())
    }

    /// The kept answer's cell, or nil after making `waiting` the waiter.
    @inline(__always)
    private func takeKept(orWait waiting: Waiting<Value>) -> UnsafeMutablePointer<Value>? {
        handOver.withTracedLock { _ -> HandedOver<UnsafeMutablePointer<Value>?> in
            guard let cell = kept else {
                waiter = waiting.body
                receiver = waiting.receiver
                receive = waiting.receive
                return HandedOver(nil)
            }
            kept = nil
            return HandedOver(cell)
        }.value
    }

    /// As `map(with:)`, `transform` held by the next promise: no closure around it and the next.
    package final func map<T>(_ transform: @escaping (consuming Value) -> T) -> Promise<T> {
        map(with: transform) { (value: consuming Value, transform) in transform(consume value) }
    }

    /// As `map`, with `captured` and `transform` held by the next promise itself, which waits as
    /// this promise's receiver: a layer of a later answer allocates its promise and nothing else.
    package final func map<Captured, T>(with captured: Captured, _ transform: @escaping (consuming Value, Captured) -> T) -> Promise<T> {
        let next = MappedPromise(captured: captured, transform: transform)
        // The answer is moved along (`consume`): a closure's parameter is otherwise borrowed, and
        // handing it on copied it (a view model's strings retained and released again per layer).
        let waiting = Waiting<Value>(body: nil, receiver: next) { (next: AnyObject, value: consuming Value) in
            unsafeDowncast(next, to: MappedPromise<Value, Captured, T>.self).receive(consume value)
        }
        if let taken = takeKept(orWait: waiting) {
            defer { taken.deallocate() }
            next.receive(taken.move())
        }
        return next
    }
}

/// Who waits for a promise: a closure, or a receiver and its function.
private struct Waiting<Value> {
    let body: ((consuming Value) -> Void)?
    let receiver: AnyObject?
    let receive: ((AnyObject, consuming Value) -> Void)?

    @inline(__always)
    func deliver(_ value: consuming Value) {
        if let receive, let receiver { return receive(receiver, consume value) }
        body?(consume value)
    }
}

/// What leaves the promise's lock: the waiter or the kept answer, owned by the one thread that
/// took it (the lock is what makes the hand-over safe, not the type).
private struct HandedOver<T>: @unchecked Sendable {
    package let value: T
    init(_ value: T) { self.value = value }
}

/// A promise fulfilled with `transform` of another promise's answer and `captured`.
final class MappedPromise<Source, Captured, Value>: Promise<Value> {
    private let captured: Captured
    private let transform: (consuming Source, Captured) -> Value

    init(captured: Captured, transform: @escaping (consuming Source, Captured) -> Value) {
        self.captured = captured
        self.transform = transform
        super.init()
    }

    func receive(_ source: consuming Source) {
        fulfil(transform(consume source, captured))
    }
}
