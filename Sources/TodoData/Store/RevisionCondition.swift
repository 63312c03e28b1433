/// The revision a change requires (RFC 9110 conditional requests, as the domain sees them: no
/// entity-tag syntax, no weak/strong; the presenter translates `If-Match` / `If-None-Match`).
public struct RevisionCondition: Sendable, Equatable {
    public enum Match: Sendable, Equatable {
        /// Any revision: the to-do exists.
        case any
        /// One of these revisions.
        case oneOf([UInt64])

        func matches(_ revision: UInt64) -> Bool {
            switch self {
            case .any: true
            case .oneOf(let revisions): revisions.contains(revision)
            }
        }
    }

    /// Why the condition refused.
    public enum Failure: Sendable, Equatable {
        /// The to-do's revision is not one of `ifMatch`'s.
        case ifMatch
        /// `ifMatch == .any` and the to-do does not exist.
        case ifMatchAnyButMissing
        /// The to-do exists (`.any`) or has one of `ifNoneMatch`'s revisions.
        case ifNoneMatch
    }

    public var ifMatch: Match?
    public var ifNoneMatch: Match?

    public static let none = RevisionCondition()

    public init(ifMatch: Match? = nil, ifNoneMatch: Match? = nil) {
        self.ifMatch = ifMatch
        self.ifNoneMatch = ifNoneMatch
    }

    /// RFC 9110 §13.2.2's order against the stored to-do (nil: missing), nil when the change may
    /// go on. On a missing to-do only `ifMatch == .any` fails (the rest goes on to its 404).
    public func failure(for todo: Todo?) -> Failure? {
        guard let todo else { return ifMatch == .any ? .ifMatchAnyButMissing : nil }
        if let ifMatch, !ifMatch.matches(todo.revision) { return .ifMatch }
        if let ifNoneMatch, ifNoneMatch.matches(todo.revision) { return .ifNoneMatch }
        return nil
    }
}
