/// Plain values first in, first out, in one ring of storage: appends go after the last, removals
/// take the first, and the storage changes size only when its owner says so (`resize`), so that
/// the owner decides how much slack it keeps. The retained changes' slots and record bytes
/// (`PackedChanges`).
struct RingBuffer<Element: BitwiseCopyable> {
    private var storage: [Element] = []
    /// Where the first element is in `storage`.
    private var head = 0
    private(set) var count = 0
    /// What fills the storage's unused places (never read).
    private let filler: Element

    init(filler: Element) {
        self.filler = filler
    }

    /// Elements it holds room for.
    var capacity: Int { storage.count }

    /// The place in `storage` of the element at `index` (counted from the first).
    @inline(__always)
    private func place(_ index: Int) -> Int {
        let place = head + index
        return place < storage.count ? place : place - storage.count
    }

    /// The element at `index`, counted from the first (`0..<count`).
    subscript(index: Int) -> Element {
        precondition(index >= 0 && index < count, "index out of range")
        return storage[place(index)]
    }

    /// Appends `element`: there must be room for it (`resize`).
    mutating func append(_ element: Element) {
        precondition(count < capacity, "no room")
        storage[place(count)] = element
        count += 1
    }

    /// Appends `elements`: there must be room for them.
    mutating func append(contentsOf elements: UnsafeBufferPointer<Element>) {
        precondition(count + elements.count <= capacity, "no room")
        guard let source = elements.baseAddress else { return }
        let start = place(count)
        let first = min(elements.count, storage.count - start)
        storage.withUnsafeMutableBufferPointer { storage in
            (storage.baseAddress! + start).update(from: source, count: first)
            if first < elements.count { storage.baseAddress!.update(from: source + first, count: elements.count - first) }
        }
        count += elements.count
    }

    /// Drops the first `n` elements (their room is reused; `resize` gives it back).
    mutating func removeFirst(_ n: Int) {
        precondition(n >= 0 && n <= count, "removing more than held")
        head = count == n ? 0 : place(n)
        count -= n
    }

    /// Runs `body` on the `n` elements from `index`: the part up to the storage's end and the part
    /// from its start (empty unless they wrap round).
    func withSegments<R>(from index: Int, count n: Int, _ body: (UnsafeBufferPointer<Element>, UnsafeBufferPointer<Element>) -> R) -> R {
        precondition(index >= 0 && n >= 0 && index + n <= count, "range out of bounds")
        return storage.withUnsafeBufferPointer { storage in
            guard n > 0, let base = storage.baseAddress else {
                return body(UnsafeBufferPointer(start: nil, count: 0), UnsafeBufferPointer(start: nil, count: 0))
            }
            let start = place(index)
            let first = min(n, storage.count - start)
            return body(UnsafeBufferPointer(start: base + start, count: first), UnsafeBufferPointer(start: base, count: n - first))
        }
    }

    /// Holds room for exactly `newCapacity` elements (at least `count`), the first one first in
    /// the storage; none at all frees it.
    mutating func resize(to newCapacity: Int) {
        precondition(newCapacity >= count, "smaller than what it holds")
        guard newCapacity != storage.count else { return }
        guard newCapacity > 0 else {
            storage = []
            head = 0
            return
        }
        var resized = [Element](repeating: filler, count: newCapacity)
        resized.withUnsafeMutableBufferPointer { target in
            withSegments(from: 0, count: count) { first, second in
                guard let base = target.baseAddress else { return }
                if let start = first.baseAddress { base.update(from: start, count: first.count) }
                if let start = second.baseAddress { (base + first.count).update(from: start, count: second.count) }
            }
        }
        storage = resized
        head = 0
    }
}
