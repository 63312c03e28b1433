/// How the in-memory store's arrays grow while they are small: by an eighth, not by doubling.
///
/// An owner's store is small (10,000 owners with 100 to-dos each are a million to-dos in ten
/// thousand stores), and the room a small array keeps is resident: the allocator (mimalloc in the
/// release build) carves blocks of up to 128 KiB out of pages it has touched. Grown by doubling,
/// an owner's 3,000 bytes of titles sat in a 5,120-byte block, its 100 default-order slots in a
/// 640-byte one. Grown by an eighth (which the allocator rounds up to its next size class, and
/// `capacity` takes), an array's room is a size class or so over what it holds: 3,072 and 448
/// bytes. Past `limit` bytes an array doubles as arrays do: each growth copies the array, and a
/// store's first 2,000 POSTs copied about 1 MB more with a limit of 64 KiB (callgrind counts about an
/// instruction per byte copied: POST +400 instructions, +0.7 %); a large block's room is pages
/// never written, which stay out of the resident set.
enum GentleGrowth {
    /// Bytes of room from which an array doubles (an owner's 100 to-dos: 6,400 bytes of records,
    /// 3,000 of 30-byte titles, 400 of slots in each index).
    static let limit = 16 << 10
    /// The least an array grows by, in bytes (one element at least).
    static let step = 64

    /// The room to reserve in an array of `stride`-byte elements that holds `count` elements in
    /// room for `capacity` and must hold `needed`; nil when it has room, or is past `limit` (the
    /// append doubles it).
    static func capacity(needed: Int, count: Int, capacity: Int, stride: Int) -> Int? {
        guard needed > capacity, capacity * stride < limit else { return nil }
        return max(needed, count + max(count / 8, step / stride, 1))
    }
}

extension Array {
    /// Makes room for `extra` more elements as `GentleGrowth` says; past its limit, an array that
    /// names its `whole` size (a chunk of records) gets that room at once, any other is left to
    /// double at the append.
    @inline(__always)
    mutating func reserveGently(forAdding extra: Int = 1, whole: Int? = nil) {
        let needed = count + extra
        guard needed > capacity else { return }
        growGently(needed: needed, whole: whole)
    }

    private mutating func growGently(needed: Int, whole: Int?) {
        let stride = MemoryLayout<Element>.stride
        if let room = GentleGrowth.capacity(needed: needed, count: count, capacity: capacity, stride: stride) {
            reserveCapacity(whole.map { Swift.max(needed, Swift.min($0, room)) } ?? room)
        } else if let whole, whole >= needed {
            reserveCapacity(whole)
        }
    }
}
