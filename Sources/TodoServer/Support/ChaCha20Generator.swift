/// ChaCha20 (RFC 8439's block function) as a random number generator: a 256-bit key and a 64-bit
/// nonce from the operating system (`getrandom(2)`, once), a 64-bit block counter, and the
/// keystream handed out eight bytes at a time, one 64-byte block per eight words. A `getrandom`
/// system call per request id and an `/dev/urandom` open/read/close per `UUID()` cost thousands
/// of instructions each.
///
/// The output is that of a cryptographic stream cipher under a secret key: not predictable from
/// earlier outputs. Not `Sendable`: keep one per lock or per thread (`RandomSource`).
struct ChaCha20Generator: RandomNumberGenerator {
    private var key: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32)
    private var nonce: (UInt32, UInt32)
    private var counter: UInt64 = 0
    private var block = Block()
    /// The next unused 64-bit word of `block`; 8 means the block is spent.
    private var position = 8

    /// Sixteen 32-bit words of keystream.
    private struct Block {
        var words:
            (
                UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32,
                UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32
            ) =
                (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    }

    /// Keyed from the operating system: the standard library's system generator reads
    /// `getrandom(2)` on Linux (`/dev/urandom` where that is missing).
    init() {
        var system = SystemRandomNumberGenerator()
        self.init(seed: (0..<5).map { _ in system.next() })
    }

    /// Keyed from five words (key, then nonce), starting at block `counter`: the same seed gives
    /// the same stream, for tests.
    init(seed: [UInt64], counter: UInt64 = 0) {
        precondition(seed.count == 5, "ChaCha20Generator needs 5 seed words")
        func halves(_ word: UInt64) -> (UInt32, UInt32) { (UInt32(truncatingIfNeeded: word), UInt32(truncatingIfNeeded: word >> 32)) }
        let (k0, k1) = halves(seed[0]), (k2, k3) = halves(seed[1]), (k4, k5) = halves(seed[2]), (k6, k7) = halves(seed[3])
        key = (k0, k1, k2, k3, k4, k5, k6, k7)
        nonce = halves(seed[4])
        self.counter = counter
    }

    mutating func next() -> UInt64 {
        if position == 8 {
            refill()
            position = 0
        }
        let index = position
        position += 1
        return withUnsafeBytes(of: &block.words) { $0.load(fromByteOffset: index * 8, as: UInt64.self) }
    }

    /// The next 64 bytes of keystream (RFC 8439 section 2.3, with a 64-bit counter and nonce).
    private mutating func refill() {
        let input:
            (
                UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32,
                UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32
            ) = (
                0x6170_7865, 0x3320_646E, 0x7962_2D32, 0x6B20_6574,
                key.0, key.1, key.2, key.3, key.4, key.5, key.6, key.7,
                UInt32(truncatingIfNeeded: counter), UInt32(truncatingIfNeeded: counter >> 32), nonce.0, nonce.1
            )
        counter &+= 1
        var x = input
        @inline(__always) func quarter(_ a: inout UInt32, _ b: inout UInt32, _ c: inout UInt32, _ d: inout UInt32) {
            a &+= b; d ^= a; d = d.rotatedLeft(16)
            c &+= d; b ^= c; b = b.rotatedLeft(12)
            a &+= b; d ^= a; d = d.rotatedLeft(8)
            c &+= d; b ^= c; b = b.rotatedLeft(7)
        }
        for _ in 0..<10 {
            quarter(&x.0, &x.4, &x.8, &x.12)
            quarter(&x.1, &x.5, &x.9, &x.13)
            quarter(&x.2, &x.6, &x.10, &x.14)
            quarter(&x.3, &x.7, &x.11, &x.15)
            quarter(&x.0, &x.5, &x.10, &x.15)
            quarter(&x.1, &x.6, &x.11, &x.12)
            quarter(&x.2, &x.7, &x.8, &x.13)
            quarter(&x.3, &x.4, &x.9, &x.14)
        }
        block.words = (
            x.0 &+ input.0, x.1 &+ input.1, x.2 &+ input.2, x.3 &+ input.3,
            x.4 &+ input.4, x.5 &+ input.5, x.6 &+ input.6, x.7 &+ input.7,
            x.8 &+ input.8, x.9 &+ input.9, x.10 &+ input.10, x.11 &+ input.11,
            x.12 &+ input.12, x.13 &+ input.13, x.14 &+ input.14, x.15 &+ input.15
        )
    }
}

extension UInt32 {
    @inline(__always) fileprivate func rotatedLeft(_ count: UInt32) -> UInt32 {
        (self << count) | (self >> (32 - count))
    }
}
