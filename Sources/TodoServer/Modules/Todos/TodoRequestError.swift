/// Why the view could not decode a to-dos request: the problem it answers, before any use case runs.
enum TodoRequestError: HTTPProblemConvertible, Equatable {
    /// Not JSON, or not an object (400).
    case malformedBody(ProblemDetails)
    /// Fields that are unknown, of the wrong type or out of range (422).
    case invalidFields([FieldError])
    /// A list query parameter that is malformed or repeated (400).
    case badQueryParameter(name: String, value: String, expected: String)

    var problem: ProblemDetails {
        switch self {
        case .malformedBody(let problem): problem
        case .invalidFields(let errors): .unprocessable(errors)
        case .badQueryParameter(let name, let value, let expected):
            .badRequest("Query parameter '\(name)' is '\(value)' but must be \(expected).")
        }
    }
}
