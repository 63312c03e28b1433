import Glibc

/// The `Date` value of a loop's answers, formatted once per second.
final class HTTPDateCache {
    private var second = -1
    private let bytes = UnsafeMutablePointer<CChar>.allocate(capacity: HTTPDate.length + 1)

    deinit { bytes.deallocate() }

    /// The date of the current second (valid until the next call on this loop's thread).
    func current() -> UnsafePointer<UInt8> {
        let now = time(nil)
        if now != second {
            second = now
            HTTPDate.write(secondsSinceEpoch: now, to: bytes)
        }
        return UnsafeRawPointer(bytes).assumingMemoryBound(to: UInt8.self)
    }
}
