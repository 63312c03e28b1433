import TodoData

/// Reads a request body that must be one JSON object, with `StrictJSONParser`; a number whose
/// exact value is an integer that fits in `Int` (`1.0`, `3e2` too) is `.integer`, and every other
/// number `.number` (`StrictJSONParser.parse`'s `integersByValue`).
struct JSONObjectReader: Sendable {
    /// The body's members, or a 400 problem saying what is wrong with the JSON.
    func readObject(_ body: [UInt8]) -> Result<[String: JSONValue], ProblemDetails> {
        guard !body.isEmpty else { return .failure(.badRequest("The request body is empty; a JSON object is expected.")) }
        switch StrictJSONParser.parse(body, integersByValue: true) {
        case .failure(let failure):
            if Self.looksFormEncoded(body) {
                return .failure(
                    .badRequest(
                        "The body is form-encoded (name=value), not JSON; send JSON (Content-Type: application/json), such as {\"title\":\"Buy milk\"}."
                    ))
            }
            return .failure(.badRequest("The body is not valid JSON: \(failure.message) at byte \(failure.offset)."))
        case .success(.object(let members)):
            return .success(members)
        case .success(let value):
            return .failure(.badRequest("The body must be a JSON object, not \(value.typeName)."))
        }
    }

    /// Whether `body` is `name=value` pairs joined by `&` in the form encoding's characters, as
    /// `http --form` or an HTML form sends: a name first, then `=`.
    static func looksFormEncoded(_ body: [UInt8]) -> Bool {
        func isNameByte(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                true
            default:
                "%+-_.*~".utf8.contains(byte)
            }
        }
        guard let first = body.first, isNameByte(first), body.contains(UInt8(ascii: "=")) else { return false }
        return body.allSatisfy { isNameByte($0) || $0 == UInt8(ascii: "=") || $0 == UInt8(ascii: "&") }
    }
}
