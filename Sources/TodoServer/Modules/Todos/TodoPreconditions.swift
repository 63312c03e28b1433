import HTTPValues
import TodoData

/// The preconditions of a change to one to-do as the request states them (`If-Match`,
/// `If-None-Match`, entity tags), and the `RevisionCondition` they mean for the store.
public struct TodoPreconditions: Sendable, Equatable {
    public var ifMatch: EntityTagCondition?
    public var ifNoneMatch: EntityTagCondition?

    /// `If-Match` compares strongly: only strong tags in our format (`"<revision>"`, the revision
    /// in canonical decimal) can match. `If-None-Match` compares weakly: `W/"7"` names revision 7
    /// as `"7"` does. Tags in another format name no revision.
    public var revisionCondition: RevisionCondition {
        RevisionCondition(
            ifMatch: ifMatch.map { Self.match($0, acceptingWeak: false) },
            ifNoneMatch: ifNoneMatch.map { Self.match($0, acceptingWeak: true) })
    }

    private static func match(_ condition: EntityTagCondition, acceptingWeak: Bool) -> RevisionCondition.Match {
        switch condition {
        case .any:
            return .any
        case .tags(let tags):
            return .oneOf(tags.compactMap { tag in acceptingWeak || !tag.isWeak ? tag.revision : nil })
        }
    }
}

extension EntityTag {
    /// The revision a to-do's tag names (`"7"`: 7), nil for a tag in another format (`"07"`,
    /// `"list-…"`, `"x"`).
    var revision: UInt64? {
        WireNumber.parse(opaque, canonical: true)
    }
}
