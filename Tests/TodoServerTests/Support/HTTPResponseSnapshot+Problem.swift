import TestSupport
import Testing

/// Expects `response` to be an RFC 9457 problem of `status`, as every error of the contract is:
/// problem+json with `status`, `type`, a `title` and a `detail`, and the CORS header every answer has.
func expectProblem(_ response: HTTPResponseSnapshot, _ status: Int, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(response.status == status, sourceLocation: sourceLocation)
    #expect(response.header("Content-Type") == "application/problem+json", sourceLocation: sourceLocation)
    #expect(response.object["status"] as? Int == status, sourceLocation: sourceLocation)
    #expect(response.object["type"] as? String == "about:blank", sourceLocation: sourceLocation)
    #expect((response.object["title"] as? String)?.isEmpty == false, sourceLocation: sourceLocation)
    #expect((response.object["detail"] as? String)?.isEmpty == false, sourceLocation: sourceLocation)
    #expect(response.header("Access-Control-Allow-Origin") == "*", sourceLocation: sourceLocation)
}
