import LockTracing
import Synchronization
import TestSupport

@testable import TodoData

/// A source that repeats itself from a seed (SplitMix64), for ids a test can predict. Behind a
/// lock: a source is shared by every loop.
final class SeededRandom: RandomSource {
    private let generator: Mutex<SplitMix64>

    init(seed: UInt64) {
        generator = Mutex(SplitMix64(seed: seed))
    }

    func next64() -> UInt64 { generator.withTracedLock { $0.next() } }
}

/// The words given, in order, then again from the first.
final class FixedWords: RandomSource {
    private let words: [UInt64]
    private let next = Atomic<Int>(0)

    init(_ words: [UInt64]) {
        self.words = words
    }

    func next64() -> UInt64 { words[next.add(1, ordering: .relaxed).oldValue % words.count] }
}
