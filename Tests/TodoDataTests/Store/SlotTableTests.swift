import Foundation
import TestSupport
import Testing

@testable import TodoData

@Suite("SlotTable: open addressing of slot numbers with tombstones and growth", .tags(.singleThreaded))
struct SlotTableTests {
    /// A table whose slots hold the keys in `keys` (slot → key), hashed by `hash`.
    private struct Harness {
        var table = SlotTable()
        var keys: [Int32: UInt64] = [:]
        let hash: (UInt64) -> UInt64

        func find(_ key: UInt64) -> Int32? { table.find(hash: hash(key)) { keys[$0] == key } }

        mutating func insert(_ key: UInt64, slot: Int32) {
            keys[slot] = key
            let keys = keys
            let hash = hash
            table.insert(slot, hash: hash(key)) { hash(keys[$0]!) }
        }

        mutating func remove(slot: Int32) -> Bool {
            guard let key = keys.removeValue(forKey: slot) else { return false }
            let hash = hash(key)
            return table.remove(slot, hash: hash)
        }
    }

    @Test("finds what is in it after random inserts and removals, with colliding hashes, growth and rebuilds")
    func randomizedAgainstDictionary() {
        let seed = ProcessInfo.processInfo.environment["SLOT_TABLE_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 0...UInt64.max)
        print("SlotTableTests.randomizedAgainstDictionary seed \(seed)")
        var generator = SplitMix64(seed: seed)
        // Few hash values: long probe runs across removed buckets.
        var harness = Harness(hash: { $0 % 97 })
        var reference: [UInt64: Int32] = [:]
        var nextSlot: Int32 = 0
        for step in 0..<20_000 {
            let key = UInt64.random(in: 0..<3000, using: &generator)
            if Int.random(in: 0..<3, using: &generator) < 2, reference[key] == nil {
                harness.insert(key, slot: nextSlot)
                reference[key] = nextSlot
                nextSlot += 1
            } else if let slot = reference.removeValue(forKey: key) {
                let removed = harness.remove(slot: slot)
                #expect(removed, "seed \(seed) step \(step)")
            }
            // Checked with plain comparisons and one #expect on a mismatch: 80,000 #expect calls cost
            // more than the table under the sanitizers.
            let loadKept = (harness.table.count + harness.table.tombstones) * 4 <= harness.table.buckets.count * 3
            if harness.table.count != reference.count || !loadKept {
                #expect(harness.table.count == reference.count, "seed \(seed) step \(step)")
                #expect(loadKept, "seed \(seed) step \(step): over three quarters full")
                return
            }
            if step % 500 == 0, let probe = (0..<3000 as Range<UInt64>).first(where: { harness.find($0) != reference[$0] }) {
                #expect(harness.find(probe) == reference[probe], "seed \(seed) step \(step) key \(probe)")
                return
            }
        }
        for (key, slot) in reference { #expect(harness.find(key) == slot, "seed \(seed)") }
    }

    @Test("a removal leaves a tombstone that later lookups probe past; a rebuild clears them without growing")
    func tombstones() {
        var harness = Harness(hash: { _ in 3 })  // every key in one probe run from bucket 3
        for slot in 0..<5 as Range<Int32> { harness.insert(UInt64(100 + slot), slot: slot) }
        #expect(harness.table.buckets[3...7] == [0, 1, 2, 3, 4])
        let removed = harness.remove(slot: 1)
        #expect(removed)
        #expect(harness.table.buckets[4] == SlotTable.tombstone && harness.table.tombstones == 1)
        #expect(harness.find(104) == 4, "the probe goes past the tombstone")
        #expect(harness.find(101) == nil)
        let removedAgain = harness.remove(slot: 1)
        #expect(!removedAgain, "gone already")
        // The last of a run becomes empty, not a tombstone.
        let removedLast = harness.remove(slot: 4)
        #expect(removedLast)
        #expect(harness.table.buckets[7] == SlotTable.empty && harness.table.tombstones == 1)
        // An insert reuses the tombstone.
        harness.insert(105, slot: 5)
        #expect(harness.table.buckets[4] == 5 && harness.table.tombstones == 0)
        // Churn at a constant size: tombstones pile up to the limit, then a rebuild at 16 buckets.
        var live: [Int32] = [0, 2, 3, 5]
        var next: Int32 = 6
        for _ in 0..<200 {
            let first = live.removeFirst()
            let removed = harness.remove(slot: first)
            #expect(removed)
            harness.insert(UInt64(100 + next), slot: next)
            live.append(next)
            next += 1
            #expect(harness.table.buckets.count == 16)
            #expect((harness.table.count + harness.table.tombstones) * 4 <= 16 * 3)
        }
        for slot in live { #expect(harness.find(UInt64(100 + slot)) == slot) }
    }

    @Test("grows by doubling once live entries pass half of the buckets, and keeps every entry")
    func growth() {
        var harness = Harness(hash: { $0 &* 0x9E37_79B9_7F4A_7C15 })
        for slot in 0..<1000 as Range<Int32> { harness.insert(UInt64(slot) * 7, slot: slot) }
        #expect(harness.table.count == 1000)
        #expect(harness.table.buckets.count == 2048)
        for slot in 0..<1000 as Range<Int32> { #expect(harness.find(UInt64(slot) * 7) == slot) }
        #expect(harness.find(3) == nil)
    }
}
