import TodoData

extension TodosView {
    /// `completed`, `q`, `sort`, `limit` and `offset` from the query; other parameters are ignored.
    public func query(from parameters: QueryParameters) -> Result<TodoQuery, ProblemDetails> {
        queryDecoder.query(from: parameters).mapError(\.problem)
    }

    /// A create or PUT body: a JSON object with `title` and optionally `completed`, `order`, `dueDate`.
    public func draft(from body: [UInt8]) -> Result<TodoDraft, ProblemDetails> {
        inputDecoder.draft(from: body).mapError(\.problem)
    }

    /// A PATCH body (RFC 7396 merge patch).
    public func patch(from body: [UInt8]) -> Result<TodoChange, ProblemDetails> {
        inputDecoder.patch(from: body).mapError(\.problem)
    }

    /// No conditional header is no condition; otherwise the revisions the tags name (`TodoPreconditions`).
    public func condition(ifMatch: EntityTagCondition?, ifNoneMatch: EntityTagCondition?) -> RevisionCondition {
        guard ifMatch != nil || ifNoneMatch != nil else { return .none }
        return TodoPreconditions(ifMatch: ifMatch, ifNoneMatch: ifNoneMatch).revisionCondition
    }
}
