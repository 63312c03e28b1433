import HTTPValues
import TodoData

/// Turns `GET /todos` query parameters into a `TodoQuery`, or names the bad parameter.
/// Parameters it does not know (a front end's cache buster, say) are left alone.
struct TodoListQueryDecoder: Sendable {
    func query(from parameters: QueryParameters) -> Result<TodoQuery, TodoRequestError> {
        var query = TodoQuery()
        for name in ["completed", "q", "sort", "limit", "offset"] {
            let values = parameters.values(for: name)
            guard values.count <= 1 else {
                return .failure(.badQueryParameter(name: name, value: values.joined(separator: ","), expected: "given once"))
            }
            guard let value = values.first else { continue }
            switch name {
            case "completed":
                guard value == "true" || value == "false" else {
                    return .failure(.badQueryParameter(name: name, value: value, expected: "true or false"))
                }
                query.completed = value == "true"
            case "q":
                query.titleContains = value
            case "sort":
                guard let sort = TodoSort(parameter: value) else {
                    let fields = TodoSort.Field.allCases.map(\.rawValue).joined(separator: ", ")
                    return .failure(.badQueryParameter(name: name, value: value, expected: "one of \(fields), with - for descending"))
                }
                query.sort = sort
            case "limit":
                // Digits only (no sign), read without wrapping, as every number a client sends.
                guard let limit = WireNumber.parse(value, max: UInt64(TodoQuery.maxLimit)), limit >= 1 else {
                    return .failure(.badQueryParameter(name: name, value: value, expected: "an integer from 1 to \(TodoQuery.maxLimit)"))
                }
                query.limit = Int(limit)
            default:
                guard let offset = WireNumber.parse(value, max: UInt64(Int.max)) else {
                    return .failure(.badQueryParameter(name: name, value: value, expected: "an integer of 0 or more"))
                }
                query.offset = Int(offset)
            }
        }
        return .success(query)
    }
}
