#if canImport(Glibc)
    import Glibc
#endif

/// The titles of `TodoSlots`: a printable ASCII title (the common case) is stored once, as given,
/// in `titleBytes`; its folded form (`TitleKey.folded`) is its ASCII lower case, made on the fly
/// when compared or searched. Any other title keeps its string and its key in `sideTitles`.
/// A changed or removed title leaves its bytes as garbage; when garbage is half of the bytes (past
/// `compactionFloor`), the live titles are copied, in slot order, into a buffer of their size.
extension TodoSlots {
    /// What one pass over a title's bytes tells: whether it is printable ASCII (stored as bytes),
    /// has an upper-case letter (folded differently), has no `"` or `\` (JSON without escapes).
    private static func classify(_ bytes: UnsafeBufferPointer<UInt8>) -> (printable: Bool, upperCase: Bool, plainJSON: Bool) {
        var notPrintable = false, upperCase = false, escaped = false
        for byte in bytes {
            notPrintable = notPrintable || byte &- 0x20 >= 0x5F
            upperCase = upperCase || byte &- 0x41 < 26
            escaped = escaped || byte == 0x22 || byte == 0x5C
        }
        return (!notPrintable, upperCase, !escaped)
    }

    mutating func storeTitle(_ todo: Todo, in record: inout TodoRecord, slot: Int32) {
        // Through `utf8`'s contiguous storage (a native string's, without copying it), else a copy.
        let stored =
            todo.title.utf8.withContiguousStorageIfAvailable { storeCompactTitle($0, in: &record) }
            ?? Array(todo.title.utf8).withUnsafeBufferPointer { storeCompactTitle($0, in: &record) }
        if !stored { sideTitles[slot] = (todo.title, todo.titleKey) }
    }

    /// Appends the title's bytes to `titleBytes` when it is printable ASCII and its offset fits;
    /// false otherwise (the title goes to `sideTitles`).
    private mutating func storeCompactTitle(_ bytes: UnsafeBufferPointer<UInt8>, in record: inout TodoRecord) -> Bool {
        let kind = Self.classify(bytes)
        guard kind.printable, titleBytes.count + bytes.count <= Int(UInt32.max) else { return false }
        // Past 16 KiB the buffer grows as arrays do, doubling. It grew by an eighth before, to
        // keep its spare capacity small; but each growth copies every byte into a new buffer
        // whose pages the kernel hands over one fault at a time, so a title's bytes were copied
        // and faulted in about nine times, now about twice (minor faults per POST into a store
        // growing from 300,000 to 400,000 to-dos: 0.065 -> 0.036). Spare capacity never written
        // stays out of the resident set. Below 16 KiB (an owner's store) it grows by an eighth
        // (`GentleGrowth`): there the spare capacity is resident, and the copies are small.
        record.titleOffset = UInt32(titleBytes.count)
        record.titleLength = UInt32(bytes.count)
        titleBytes.reserveGently(forAdding: bytes.count)
        titleBytes.append(contentsOf: bytes)
        record.flags.insert(.compactTitle)
        if kind.upperCase { record.flags.insert(.upperCase) }
        if kind.plainJSON { record.flags.insert(.plainTitle) }
        return true
    }

    mutating func releaseTitle(_ slot: Int32) {
        let record = self[slot]
        if record.isCompactTitle {
            garbageBytes += Int(record.titleLength)
        } else {
            sideTitles[slot] = nil
        }
    }

    /// Whether the to-do in `slot` has exactly `title`, byte for byte (`==` on strings holds for
    /// canonically equivalent ones: the KELVIN SIGN and a `K` would keep the old bytes after a
    /// rename that changed them).
    func titleEquals(_ slot: Int32, _ title: String) -> Bool {
        let record = self[slot]
        guard record.isCompactTitle else { return sideTitles[slot]?.title.hasSameBytes(as: title) ?? false }
        return withTitleBytes(record) { bytes in title.hasBytes(bytes) ?? bytes.elementsEqual(title.utf8) }
    }

    func withTitleBytes<R>(_ record: TodoRecord, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        titleBytes.withUnsafeBufferPointer { all in
            body(record.title(in: all))
        }
    }

    /// The title and its key, as `Todo(title:)` would prepare them.
    func titleAndKey(_ slot: Int32, _ record: TodoRecord) -> (String, TitleKey) {
        guard record.isCompactTitle else {
            let side = sideTitles[slot]!
            return (side.title, side.key)
        }
        return withTitleBytes(record) { bytes in
            let title = String(decoding: bytes, as: UTF8.self)
            guard record.flags.contains(.upperCase) else { return (title, TitleKey(folded: title, exact: title, isPlainASCII: true)) }
            let folded = String(unsafeUninitializedCapacity: bytes.count) { buffer in
                for index in bytes.indices { buffer[index] = bytes[index] &- 0x41 < 26 ? bytes[index] | 0x20 : bytes[index] }
                return bytes.count
            }
            return (title, TitleKey(folded: folded, exact: title, isPlainASCII: true))
        }
    }

    /// `<0`, `0` or `>0` as the title of `a` sorts before, with or after that of `b`
    /// (`TitleKey.compare` of their keys: folded first, then exact). Two stored titles (the common
    /// case) are read from one view of `titleBytes`; the closures capture neither `self` nor a copy
    /// of it (a capture copied the whole `TodoSlots`, seven retains and releases, at each step of a
    /// binary search).
    func compareTitles(_ a: Int32, _ b: Int32) -> Int {
        let x = self[a]
        let y = self[b]
        guard x.isCompactTitle, y.isCompactTitle else {
            return withKeyBytes(a) { foldedA, foldA, exactA in
                withKeyBytes(b) { foldedB, foldB, exactB in
                    Self.compareKeys(foldedA, foldA, exactA, foldedB, foldB, exactB)
                }
            }
        }
        return titleBytes.withUnsafeBufferPointer { all in
            let titleA = x.title(in: all)
            let titleB = y.title(in: all)
            return Self.compareKeys(
                titleA, x.flags.contains(.upperCase), titleA, titleB, y.flags.contains(.upperCase), titleB)
        }
    }

    /// `compareTitles` of two keys, each as its folded bytes (with whether they still need ASCII
    /// lower-casing) and its exact bytes.
    private static func compareKeys(
        _ foldedA: UnsafeBufferPointer<UInt8>, _ foldA: Bool, _ exactA: UnsafeBufferPointer<UInt8>,
        _ foldedB: UnsafeBufferPointer<UInt8>, _ foldB: Bool, _ exactB: UnsafeBufferPointer<UInt8>
    ) -> Int {
        let folded = foldA || foldB ? compare(foldedA, folding: foldA, foldedB, folding: foldB) : compareBytes(foldedA, foldedB)
        if folded != 0 { return folded }
        // Titles without capitals are their own folded key: equal folded, equal exact.
        if !foldA, !foldB, foldedA.baseAddress == exactA.baseAddress, foldedB.baseAddress == exactB.baseAddress,
            foldedA.count == exactA.count, foldedB.count == exactB.count
        {
            return 0
        }
        return compareBytes(exactA, exactB)
    }

    /// `compare` without folding: `memcmp`, which compares many bytes per step where a loop takes
    /// one (filing a to-do compares titles at every step of its binary searches).
    private static func compareBytes(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>) -> Int {
        let common = min(x.count, y.count)
        if common > 0 {
            let order = memcmp(x.baseAddress!, y.baseAddress!, common)
            if order != 0 { return Int(order) }
        }
        return x.count - y.count
    }

    /// Runs `body` on the key's folded bytes (with whether they still need ASCII lower-casing)
    /// and its exact bytes.
    private func withKeyBytes<R>(
        _ slot: Int32, _ body: (UnsafeBufferPointer<UInt8>, Bool, UnsafeBufferPointer<UInt8>) -> R
    ) -> R {
        let record = self[slot]
        if record.isCompactTitle {
            return withTitleBytes(record) { body($0, record.flags.contains(.upperCase), $0) }
        }
        let key = sideTitles[slot]!.key
        return Self.withBytes(key.folded) { folded in Self.withBytes(key.exact) { exact in body(folded, false, exact) } }
    }

    private static func withBytes<R>(_ string: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let result = string.utf8.withContiguousStorageIfAvailable(body) { return result }
        return Array(string.utf8).withUnsafeBufferPointer(body)
    }

    /// Byte order of `x` and `y`, each lower-cased (ASCII) on the fly when `folding`.
    private static func compare(
        _ x: UnsafeBufferPointer<UInt8>, folding foldX: Bool, _ y: UnsafeBufferPointer<UInt8>, folding foldY: Bool
    ) -> Int {
        let common = min(x.count, y.count)
        var index = 0
        while index < common {
            var a = x[index]
            var b = y[index]
            if foldX && a &- 0x41 < 26 { a |= 0x20 }
            if foldY && b &- 0x41 < 26 { b |= 0x20 }
            if a != b { return Int(a) - Int(b) }
            index += 1
        }
        return x.count - y.count
    }

    mutating func compactTitlesIfNeeded() {
        guard titleBytes.count >= compactionFloor, garbageBytes * 2 > titleBytes.count else { return }
        compactTitles()
    }

    /// Copies the live titles, in slot order, into a buffer of their size.
    mutating func compactTitles() {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(titleBytes.count - garbageBytes)
        let previous = titleBytes
        previous.withUnsafeBufferPointer { old in
            for slot in allSlots {
                var record = self[slot]
                guard record.isLive && record.isCompactTitle else { continue }
                let start = Int(record.titleOffset)
                record.titleOffset = UInt32(bytes.count)
                bytes.append(contentsOf: old[start..<(start + Int(record.titleLength))])
                self[slot] = record
            }
        }
        titleBytes = bytes
        garbageBytes = 0
    }
}

extension TitleKey {
    /// A key whose parts are known (a title the store kept as bytes).
    init(folded: String, exact: String, isPlainASCII: Bool) {
        self.folded = folded
        self.exact = exact
        self.isPlainASCII = isPlainASCII
    }
}
