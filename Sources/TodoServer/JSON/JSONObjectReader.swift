/// Reads a request body that must be one JSON object, with `StrictJSONParser`.
struct JSONObjectReader: Sendable {
    /// The body's members, or a 400 problem saying what is wrong with the JSON.
    func readObject(_ body: [UInt8]) -> Result<[String: JSONValue], ProblemDetails> {
        guard !body.isEmpty else { return .failure(.badRequest("The request body is empty; a JSON object is expected.")) }
        switch StrictJSONParser.parse(body) {
        case .failure(let failure):
            return .failure(.badRequest("The body is not valid JSON: \(failure.message) at byte \(failure.offset)."))
        case .success(.object(let members)):
            return .success(members)
        case .success(let value):
            return .failure(.badRequest("The body must be a JSON object, not \(value.typeName)."))
        }
    }
}
