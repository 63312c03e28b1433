/// A change's place in a store's change order: `major`, then `minor`. In memory and in a journal
/// `major` is fixed (or the journal's generation) and `minor` counts changes; in PostgreSQL they
/// are the writing transaction's id and the change's number in the table.
public struct ChangePosition: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var major: UInt64
    public var minor: UInt64

    public init(major: UInt64, minor: UInt64) {
        self.major = major
        self.minor = minor
    }

    public static func < (lhs: ChangePosition, rhs: ChangePosition) -> Bool {
        (lhs.major, lhs.minor) < (rhs.major, rhs.minor)
    }

    public var description: String { "\(major).\(minor)" }
}
