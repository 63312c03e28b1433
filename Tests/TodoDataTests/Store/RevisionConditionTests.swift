import Testing

@testable import TodoData
@testable import TodoDataTestSupport

@Suite("RevisionCondition")
struct RevisionConditionTests {
    let todo = makeTodo("a", revision: 7)

    /// RFC 9110 §13.2.2: If-Match first (step 1), then If-None-Match (step 3); a missing to-do
    /// fails only If-Match: * (the rest goes on to its 404).
    @Test(
        "every RFC 9110 §13.2.2 case, on an existing and a missing to-do",
        arguments: [
            // (If-Match, If-None-Match, on the to-do at revision 7, on a missing to-do)
            Case(nil, nil, nil, nil),
            Case(.any, nil, nil, .ifMatchAnyButMissing),
            Case(.oneOf([7]), nil, nil, nil),
            Case(.oneOf([5, 7, 9]), nil, nil, nil),
            Case(.oneOf([6]), nil, .ifMatch, nil),
            Case(.oneOf([]), nil, .ifMatch, nil),
            Case(nil, .any, .ifNoneMatch, nil),
            Case(nil, .oneOf([7]), .ifNoneMatch, nil),
            Case(nil, .oneOf([6, 7]), .ifNoneMatch, nil),
            Case(nil, .oneOf([6, 8]), nil, nil),
            Case(nil, .oneOf([]), nil, nil),
            // Both: If-Match decides first; once it passes, If-None-Match decides.
            Case(.oneOf([6]), .oneOf([7]), .ifMatch, nil),
            Case(.oneOf([6]), .any, .ifMatch, nil),
            Case(.oneOf([7]), .oneOf([7]), .ifNoneMatch, nil),
            Case(.oneOf([7]), .oneOf([8]), nil, nil),
            Case(.any, .any, .ifNoneMatch, .ifMatchAnyButMissing),
            Case(.any, .oneOf([8]), nil, .ifMatchAnyButMissing),
        ])
    func failure(_ test: Case) {
        let condition = RevisionCondition(ifMatch: test.ifMatch, ifNoneMatch: test.ifNoneMatch)
        #expect(condition.failure(for: todo) == test.existing)
        #expect(condition.failure(for: nil) == test.missing)
    }

    @Test("none is the empty condition and never fails")
    func none() {
        #expect(RevisionCondition.none == RevisionCondition(ifMatch: nil, ifNoneMatch: nil))
        #expect(RevisionCondition.none.failure(for: todo) == nil)
        #expect(RevisionCondition.none.failure(for: nil) == nil)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let ifMatch: RevisionCondition.Match?
        let ifNoneMatch: RevisionCondition.Match?
        let existing: RevisionCondition.Failure?
        let missing: RevisionCondition.Failure?

        init(
            _ ifMatch: RevisionCondition.Match?, _ ifNoneMatch: RevisionCondition.Match?,
            _ existing: RevisionCondition.Failure?, _ missing: RevisionCondition.Failure?
        ) {
            self.ifMatch = ifMatch
            self.ifNoneMatch = ifNoneMatch
            self.existing = existing
            self.missing = missing
        }

        var testDescription: String { "If-Match \(ifMatch.map { "\($0)" } ?? "-"), If-None-Match \(ifNoneMatch.map { "\($0)" } ?? "-")" }
    }
}
