import TestSupport
import Testing

@testable import EventHTTP

/// `NumberTable` against `Dictionary`, the implementation it stands in for: the same operations,
/// in a random order (seed printed), must leave the same records.
@Suite struct NumberTableTests {
    struct Number: TableNumber, Hashable {
        let rawValue: UInt
    }

    @Test func randomOperationsAgreeWithADictionary() {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("NumberTableTests seed \(seed)")
        var random = SplitMix64(seed: seed)
        var table = NumberTable<Number, Int>()
        var reference: [Number: Int] = [:]
        var next: UInt = 0
        for step in 0..<20_000 {
            // Keys mostly as the server hands them out (increasing, a window of live ones), some
            // from a small range and some far apart with equal low bits, so that slots clash.
            let key: Number
            switch random.next() % 8 {
            case 0: key = Number(rawValue: UInt(random.next() % 64))
            case 1: key = Number(rawValue: UInt(random.next() % 4) << 40 | UInt(random.next() % 8))
            case 2, 3:
                next += 1
                key = Number(rawValue: next)
            default: key = Number(rawValue: next &- UInt(random.next() % 40))
            }
            let value = Int(truncatingIfNeeded: random.next() % 1000)
            switch random.next() % 5 {
            case 0, 1:
                table[key] = value
                reference[key] = value
            case 2:
                #expect(table.removeValue(forKey: key) == reference.removeValue(forKey: key), "seed \(seed) step \(step)")
            case 3:
                if let index = table.index(forKey: key) {
                    table.values[index] += 1
                    reference[key]! += 1
                } else {
                    #expect(reference[key] == nil, "seed \(seed) step \(step)")
                }
            default:
                table[key] = nil
                reference[key] = nil
            }
            #expect(table.count == reference.count, "seed \(seed) step \(step)")
            #expect(table[key] == reference[key], "seed \(seed) step \(step)")
            if step % 500 == 0 {
                #expect(Dictionary(uniqueKeysWithValues: table.map { ($0.key, $0.value) }) == reference, "seed \(seed) step \(step)")
                for (key, value) in reference {
                    #expect(table.index(forKey: key).map { table.values[$0] } == value, "seed \(seed) step \(step)")
                }
            }
        }
        let odd = table.filter { $0.value % 2 == 1 }
        #expect(Dictionary(uniqueKeysWithValues: odd.map { ($0.key, $0.value) }) == reference.filter { $0.value % 2 == 1 })
    }

    @Test func keysAndValuesStayPairedAndEqualityIgnoresOrder() {
        var a = NumberTable<Number, String>()
        var b = NumberTable<Number, String>()
        for number in 1...5 { a[Number(rawValue: UInt(number))] = "v\(number)" }
        for number in (1...5).reversed() { b[Number(rawValue: UInt(number))] = "v\(number)" }
        #expect(a == b)
        a.removeValue(forKey: Number(rawValue: 2))
        #expect(a != b)
        #expect(a.count == 4 && a[Number(rawValue: 2)] == nil)
        for (index, key) in a.keys.enumerated() { #expect(a.values[index] == "v\(key.rawValue)") }
        #expect(NumberTable<Number, String>().isEmpty)
    }
}
