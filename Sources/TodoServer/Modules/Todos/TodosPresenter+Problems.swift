import HTTPValues
import TodoData

extension TodosPresenter {
    /// A domain error as a problem: 404, 412 with the current `ETag` when the to-do exists, the
    /// store's failure (503 with `Retry-After` when the store says when).
    static func problem(_ error: TodosError) -> ResponseViewModel<ProblemDetails> {
        if case .store(let failure) = error { return ResponseViewModel(storeFailure: failure) }
        var headers: HTTPHeaders = [:]
        if case .conditionFailed(_, let current?, _) = error { headers.set("ETag", EntityTag(revision: current).description) }
        return ResponseViewModel(problem: error.problem, headers: consume headers)
    }
}

extension TodosError {
    /// The error's problem details, as the presenter answers them (404, 412, 503).
    var problem: ProblemDetails {
        switch self {
        case .notFound(let id): .notFound("No to-do has the id '\(id)'.")
        case .conditionFailed(let id, let current, let failure):
            ProblemDetails(
                status: 412, title: "Precondition Failed", detail: Self.conditionDetail(id: id, current: current, failure: failure))
        case .store(let failure): failure.problem
        }
    }

    private static func conditionDetail(id: String, current: UInt64?, failure: RevisionCondition.Failure) -> String {
        let version = current.map { " (ETag \(EntityTag(revision: $0)))" } ?? ""
        return switch failure {
        case .ifMatch:
            "If-Match does not match the current version of to-do '\(id)'\(version); read it again and retry."
        case .ifMatchAnyButMissing:
            "If-Match: * asks for an existing to-do, and no to-do has the id '\(id)'."
        case .ifNoneMatch:
            "If-None-Match matches the current version of to-do '\(id)'\(version), so it was left unchanged."
        }
    }
}
