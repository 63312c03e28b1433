/// Plain values first in, first out, in one ring of storage: appends go after the last, removals
/// take the first, and the storage changes size only when its owner says so (`resize`), so that
/// the owner decides how much slack it keeps. The retained changes' slots and record bytes
/// (`PackedChanges`).
///
/// The storage is an array that fills as the ring does: a place is appended to it the first time
/// it is written (an array's places must be initialized, and filling the unused room beforehand
/// cost a write of every byte at each resize). Until the ring first wraps round, the array ends
/// where the ring's last element is; from then on it is `capacity` long.
struct RingBuffer<Element: BitwiseCopyable> {
    private var storage: [Element] = []
    /// Where the first element is in `storage`.
    private var head = 0
    private(set) var count = 0
    /// Elements it holds room for (the storage's own capacity may be larger: the allocator's rounding).
    private(set) var capacity = 0

    /// The place in `storage` of the element at `index` (counted from the first).
    @inline(__always)
    private func place(_ index: Int) -> Int {
        let place = head + index
        return place < capacity ? place : place - capacity
    }

    /// The element at `index`, counted from the first (`0..<count`).
    subscript(index: Int) -> Element {
        precondition(index >= 0 && index < count, "index out of range")
        return storage[place(index)]
    }

    /// Appends `element`: there must be room for it (`resize`).
    mutating func append(_ element: Element) {
        precondition(count < capacity, "no room")
        let at = place(count)
        if at == storage.count { storage.append(element) } else { storage[at] = element }
        count += 1
    }

    /// Appends `elements`: there must be room for them.
    mutating func append(contentsOf elements: UnsafeBufferPointer<Element>) {
        precondition(count + elements.count <= capacity, "no room")
        guard !elements.isEmpty else { return }
        let start = place(count)
        let first = min(elements.count, capacity - start)
        write(UnsafeBufferPointer(rebasing: elements[..<first]), at: start)
        if first < elements.count { write(UnsafeBufferPointer(rebasing: elements[first...]), at: 0) }
        count += elements.count
    }

    /// Writes `elements` from `start` on: over places written before, then past the array's end.
    private mutating func write(_ elements: UnsafeBufferPointer<Element>, at start: Int) {
        precondition(start <= storage.count, "a gap in the storage")
        let over = min(elements.count, storage.count - start)
        if over > 0 {
            storage.withUnsafeMutableBufferPointer { storage in
                (storage.baseAddress! + start).update(from: elements.baseAddress!, count: over)
            }
        }
        if over < elements.count { storage.append(contentsOf: UnsafeBufferPointer(rebasing: elements[over...])) }
    }

    /// Drops the first `n` elements (their room is reused; `resize` gives it back).
    mutating func removeFirst(_ n: Int) {
        precondition(n >= 0 && n <= count, "removing more than held")
        head = place(n)
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
            let first = min(n, capacity - start)
            return body(UnsafeBufferPointer(start: base + start, count: first), UnsafeBufferPointer(start: base, count: n - first))
        }
    }

    /// Holds room for exactly `newCapacity` elements (at least `count`), the first one first in
    /// the storage; none at all frees it.
    mutating func resize(to newCapacity: Int) {
        precondition(newCapacity >= count, "smaller than what it holds")
        guard newCapacity != capacity else { return }
        var resized: [Element] = []
        if newCapacity > 0 {
            resized.reserveCapacity(newCapacity)
            withSegments(from: 0, count: count) { first, second in
                resized.append(contentsOf: first)
                resized.append(contentsOf: second)
            }
        }
        storage = resized
        head = 0
        capacity = newCapacity
    }
}
