import Testing

@testable import TodoData
@testable import TodoDataTestSupport
@testable import TodoServer

@Suite("TodoPreconditions")
struct TodoPreconditionsTests {
    @Test("If-Match names the revisions of strong tags in our format only; If-None-Match compares weakly; * is any")
    func translation() {
        let cases: [(String?, String?, RevisionCondition)] = [
            (nil, nil, .none),
            (#""7""#, nil, RevisionCondition(ifMatch: .oneOf([7]))),
            (#""5", "7""#, nil, RevisionCondition(ifMatch: .oneOf([5, 7]))),
            // Weak tags never match strongly; tags in another format name no revision.
            (#"W/"7""#, nil, RevisionCondition(ifMatch: .oneOf([]))),
            (#""07", "+7", "7.0", "list-7", "x", "18446744073709551616""#, nil, RevisionCondition(ifMatch: .oneOf([]))),
            (#""18446744073709551615""#, nil, RevisionCondition(ifMatch: .oneOf([UInt64.max]))),
            ("not a tag", nil, RevisionCondition(ifMatch: .oneOf([]))),
            ("*", nil, RevisionCondition(ifMatch: .any)),
            (nil, "*", RevisionCondition(ifNoneMatch: .any)),
            (nil, #"W/"7", "8", "list-9""#, RevisionCondition(ifNoneMatch: .oneOf([7, 8]))),
            (#"W/"6", "7""#, #"W/"7""#, RevisionCondition(ifMatch: .oneOf([7]), ifNoneMatch: .oneOf([7]))),
        ]
        for (ifMatch, ifNoneMatch, expected) in cases {
            let preconditions = TodoPreconditions(
                ifMatch: ifMatch.map(EntityTagCondition.init), ifNoneMatch: ifNoneMatch.map(EntityTagCondition.init))
            #expect(preconditions.revisionCondition == expected, "If-Match \(ifMatch ?? "-"), If-None-Match \(ifNoneMatch ?? "-")")
        }
    }

    @Test("translated and evaluated: a weak If-Match refuses, a weak If-None-Match refuses, as RFC 9110 §13.1 says")
    func endToEndSemantics() {
        let todo = makeTodo("a", revision: 7)
        func failure(_ ifMatch: String?, _ ifNoneMatch: String?) -> RevisionCondition.Failure? {
            TodoPreconditions(ifMatch: ifMatch.map(EntityTagCondition.init), ifNoneMatch: ifNoneMatch.map(EntityTagCondition.init))
                .revisionCondition.failure(for: todo)
        }
        #expect(failure(#""7""#, nil) == nil)
        #expect(failure(#"W/"7""#, nil) == .ifMatch)
        #expect(failure(#""07""#, nil) == .ifMatch)
        #expect(failure(nil, #"W/"7""#) == .ifNoneMatch)
        #expect(failure(nil, #""6""#) == nil)
    }

    @Test("each failure's 412 detail says which header refused and the current tag when there is one")
    func details() {
        #expect(
            TodosError.conditionFailed(id: "a", current: 7, failure: .ifNoneMatch).problem
                == ProblemDetails(
                    status: 412, title: "Precondition Failed",
                    detail: #"If-None-Match matches the current version of to-do 'a' (ETag "7"), so it was left unchanged."#))
        #expect(
            TodosError.conditionFailed(id: "a", current: nil, failure: .ifMatchAnyButMissing).problem.detail
                == "If-Match: * asks for an existing to-do, and no to-do has the id 'a'.")
        #expect(
            TodosError.conditionFailed(id: "a", current: 7, failure: .ifMatch).problem.detail
                == #"If-Match does not match the current version of to-do 'a' (ETag "7"); read it again and retry."#)
    }
}
