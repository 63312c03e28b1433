extension StoreUpdate {
    /// What `update` does to `stored` (nil: missing), decided the same way by every store that
    /// runs it in Swift: `nextRevision` is asked only for a change that changes something, whose
    /// revision it gives; `updatedAt` becomes `time` then.
    static func decide(
        stored: Todo?, change: TodoChange, condition: RevisionCondition, at time: Timestamp,
        nextRevision: (Todo) -> UInt64
    ) -> StoreUpdate {
        guard let stored else { return .notFound }
        if condition.failure(for: stored) != nil { return .conditionFailed(stored) }
        var changed = change.applied(to: stored)
        guard !changed.hasSameContent(as: stored) else { return .unchanged(stored) }
        changed.revision = nextRevision(stored)
        changed.updatedAt = time
        return .updated(changed)
    }
}
