import Foundation

/// The seed of a seeded random test: `TODO_TEST_SEED` when set, else a new one. Printed as
/// "`name`: seed N (TODO_TEST_SEED repeats it)", so that a failing run can be repeated.
package func testSeed(_ name: String) -> UInt64 {
    let seed = ProcessInfo.processInfo.environment["TODO_TEST_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 1...UInt64.max)
    print("\(name): seed \(seed) (TODO_TEST_SEED repeats it)")
    return seed
}
