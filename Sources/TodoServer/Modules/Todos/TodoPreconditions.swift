/// The preconditions of a change to one to-do (`If-Match`, `If-None-Match`), evaluated as RFC 9110
/// §13.2.2 orders them against the to-do as stored, inside the store's atomic update.
public struct TodoPreconditions: Sendable, Equatable {
    /// Why a change was refused with 412.
    public enum Failure: Sendable, Equatable {
        /// `If-Match` lists no tag that strongly matches the current one.
        case ifMatch
        /// `If-Match: *` and the to-do does not exist (RFC 9110 §13.1.1).
        case ifMatchAnyButMissing
        /// `If-None-Match` is `*` or lists a tag that weakly matches the current one (§13.1.2).
        case ifNoneMatch
    }

    public var ifMatch: EntityTagCondition?
    public var ifNoneMatch: EntityTagCondition?

    public init(ifMatch: EntityTagCondition? = nil, ifNoneMatch: EntityTagCondition? = nil) {
        self.ifMatch = ifMatch
        self.ifNoneMatch = ifNoneMatch
    }

    /// Why the change must not happen to `todo` (nil: the to-do is missing), or nil when it may.
    /// `If-Match` with tags on a missing to-do, and `If-None-Match` on a missing one, let the
    /// request go on to its 404.
    public func failure(for todo: Todo?) -> Failure? {
        guard let todo else { return ifMatch == .any ? .ifMatchAnyButMissing : nil }
        let tag = EntityTag(revision: todo.revision)
        if let ifMatch, !ifMatch.matchesStrongly(tag) { return .ifMatch }
        if let ifNoneMatch, ifNoneMatch.matchesWeakly(tag) { return .ifNoneMatch }
        return nil
    }
}
