import Testing
@testable import TodoServer

@Suite("TodoPreconditions")
struct TodoPreconditionsTests {
    let todo = makeTodo("a", revision: 7)

    @Test("If-Match is evaluated first (strong), then If-None-Match (weak); * and missing to-dos per RFC 9110 §13.1")
    func evaluation() {
        let cases: [(String?, String?, Bool, TodoPreconditions.Failure?)] = [
            (nil, nil, true, nil),
            (#""7""#, nil, true, nil), (#""6""#, nil, true, .ifMatch), (#"W/"7""#, nil, true, .ifMatch), ("*", nil, true, nil),
            (nil, "*", true, .ifNoneMatch), (nil, #""7""#, true, .ifNoneMatch), (nil, #"W/"7""#, true, .ifNoneMatch),
            (nil, #""6", "8""#, true, nil),
            (#""6""#, "*", true, .ifMatch), (#""7""#, #""7""#, true, .ifNoneMatch), ("*", #""8""#, true, nil),
            // A missing to-do: only If-Match: * fails; tags and If-None-Match leave it to the 404.
            ("*", nil, false, .ifMatchAnyButMissing), (#""7""#, nil, false, nil), (nil, "*", false, nil),
            (nil, nil, false, nil), ("*", "*", false, .ifMatchAnyButMissing),
        ]
        for (ifMatch, ifNoneMatch, exists, expected) in cases {
            let preconditions = TodoPreconditions(
                ifMatch: ifMatch.map(EntityTagCondition.init), ifNoneMatch: ifNoneMatch.map(EntityTagCondition.init))
            #expect(
                preconditions.failure(for: exists ? todo : nil) == expected,
                "If-Match \(ifMatch ?? "-"), If-None-Match \(ifNoneMatch ?? "-"), exists \(exists)")
        }
    }

    @Test("each failure's 412 detail says which header refused and the current tag when there is one")
    func details() {
        #expect(TodosError.preconditionFailed(id: "a", current: EntityTag("7"), failure: .ifNoneMatch).problem
            == ProblemDetails(
                status: 412, title: "Precondition Failed",
                detail: #"If-None-Match matches the current version of to-do 'a' (ETag "7"), so it was left unchanged."#))
        #expect(TodosError.preconditionFailed(id: "a", current: nil, failure: .ifMatchAnyButMissing).problem.detail
            == "If-Match: * asks for an existing to-do, and no to-do has the id 'a'.")
        #expect(TodosError.preconditionFailed(id: "a", current: EntityTag("7"), failure: .ifMatch).problem.detail
            == #"If-Match does not match the current version of to-do 'a' (ETag "7"); read it again and retry."#)
    }
}
