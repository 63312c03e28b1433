import Foundation

/// Reads a request body that must be one JSON object: the strict syntax check, then `JSONDecoder`.
struct JSONObjectReader: Sendable {
    private let decoder = JSONDecoder()

    /// The body's members, or a 400 problem saying what is wrong with the JSON.
    func readObject(_ body: [UInt8]) -> Result<[String: JSONValue], ProblemDetails> {
        guard !body.isEmpty else { return .failure(.badRequest("The request body is empty; a JSON object is expected.")) }
        if let failure = StrictJSONValidator.validate(body) {
            return .failure(.badRequest("The body is not valid JSON: \(failure.message) at byte \(failure.offset)."))
        }
        let value: JSONValue
        do {
            value = try decoder.decode(JSONValue.self, from: Data(body))
        } catch {
            return .failure(.badRequest("The body is not valid JSON."))
        }
        guard case .object(let members) = value else {
            return .failure(.badRequest("The body must be a JSON object, not \(value.typeName)."))
        }
        return .success(members)
    }
}
