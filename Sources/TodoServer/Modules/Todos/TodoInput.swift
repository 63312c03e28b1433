import TodoData

/// Turns a request body into a `TodoDraft` or a merge patch's `TodoChange`, or says precisely what is wrong.
struct TodoInputDecoder: Sendable {
    /// The longest title in Unicode scalars (not grapheme clusters: `a` and a million combining
    /// accents is one character but a megabyte).
    static let maxTitleScalars = 500
    /// The longest title in UTF-8 bytes: derived, 4 bytes being the most a scalar takes, so a title
    /// within the scalar limit is always within this one; checked first because it costs nothing.
    static let maxTitleBytes = 4 * maxTitleScalars
    /// Integers a JavaScript client can hold exactly.
    static let orderRange = -9_007_199_254_740_991...9_007_199_254_740_991
    private static let readOnlyFields: Set<String> = ["id", "url", "createdAt", "updatedAt"]
    private static let writableFields: Set<String> = ["title", "completed", "order", "dueDate"]

    private let reader = JSONObjectReader()
    /// Whether bodies of the usual shape are read by `FlatScan` and plain ASCII titles skip the
    /// general checks (`plainASCIITitle`); tests turn it off to compare with the general path.
    var usesFastPaths = true

    func draft(from body: [UInt8]) -> Result<TodoDraft, TodoRequestError> {
        fields(of: body).flatMap { (fields, unknown) in
            var errors = unknown
            var title: String?
            if let value = fields.title {
                title = validTitle(value, &errors)
            } else {
                errors.append(FieldError(field: "title", message: "is required"))
            }
            let completed = fields.completed.flatMap { validBool("completed", $0, &errors) } ?? false
            let order = fields.order.flatMap { validOrder($0, &errors) } ?? nil
            let dueDate = fields.dueDate.flatMap { validDueDate($0, &errors) } ?? nil
            guard errors.isEmpty, let title else { return .failure(.invalidFields(errors.sorted { $0.field < $1.field })) }
            return .success(TodoDraft(title: title, completed: completed, order: order, dueDate: dueDate))
        }
    }

    /// A merge patch (RFC 7396): an absent member keeps its field, `null` clears it.
    func patch(from body: [UInt8]) -> Result<TodoChange, TodoRequestError> {
        fields(of: body).flatMap { (fields, unknown) in
            var errors = unknown
            let patch = TodoChange(
                title: fields.title.flatMap { validTitle($0, &errors) },
                completed: fields.completed.flatMap { validBool("completed", $0, &errors) },
                order: Self.field(fields.order.flatMap { validOrder($0, &errors) }),
                dueDate: Self.field(fields.dueDate.flatMap { validDueDate($0, &errors) }))
            guard errors.isEmpty else { return .failure(.invalidFields(errors.sorted { $0.field < $1.field })) }
            return .success(patch)
        }
    }

    /// A merge patch's member as a field change: absent (or invalid) keeps, `null` clears.
    private static func field<Value>(_ member: Value??) -> TodoChange.Field<Value> {
        switch member {
        case .none: .keep
        case .some(.none): .clear
        case .some(.some(let value)): .set(value)
        }
    }

    /// The writable members of the body, and an error for each unknown one; read-only ones are dropped.
    private func fields(of body: [UInt8]) -> Result<(WritableMembers, [FieldError]), TodoRequestError> {
        if usesFastPaths, let members = FlatScan.members(of: body) { return .success((members, [])) }
        return reader.readObject(body).mapError(TodoRequestError.malformedBody).map { members in
            let unknown = members.keys.filter { !Self.writableFields.contains($0) && !Self.readOnlyFields.contains($0) }
            return (
                WritableMembers(
                    title: members["title"], completed: members["completed"], order: members["order"], dueDate: members["dueDate"]),
                unknown.map { FieldError(field: $0, message: "is not a known field") }
            )
        }
    }

    private func validTitle(_ value: JSONValue, _ errors: inout [FieldError]) -> String? {
        guard case .string(let raw) = value else {
            errors.append(FieldError(field: "title", message: "must be a string, not \(value.typeName)"))
            return nil
        }
        if usesFastPaths, let plain = Self.plainASCIITitle(raw) { return plain }
        let title = raw.trimmingWhitespace()
        if title.isEmpty {
            errors.append(FieldError(field: "title", message: "must not be empty"))
            return nil
        }
        if title.utf8.count > Self.maxTitleBytes || title.unicodeScalars.count > Self.maxTitleScalars {
            errors.append(
                FieldError(
                    field: "title",
                    message:
                        "must be at most \(Self.maxTitleScalars) characters (Unicode scalars, so at most \(Self.maxTitleBytes) bytes of UTF-8)"
                ))
            return nil
        }
        if let (position, scalar) = title.unicodeScalars.enumerated().first(where: { Self.isControl($0.element) }) {
            errors.append(
                FieldError(
                    field: "title",
                    message: "must not contain control characters (U+0000-U+001F such as tab and newline, U+007F-U+009F); "
                        + "found \(Self.codePoint(scalar)) at character \(position + 1)"))
            return nil
        }
        return title
    }

    /// C0 controls, DEL and C1 controls (Unicode general category Cc).
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// `U+0009`.
    private static func codePoint(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    private func validBool(_ field: String, _ value: JSONValue, _ errors: inout [FieldError]) -> Bool? {
        guard case .bool(let flag) = value else {
            errors.append(FieldError(field: field, message: "must be true or false, not \(value.typeName)"))
            return nil
        }
        return flag
    }

    /// `.some(nil)` for an explicit null. A number with no fraction (`3.0`, `3e2`) is an integer, as
    /// JSON Schema counts it: the reader makes it `.integer`, deciding on the literal's digits, so
    /// every `.number` has a fraction (at whatever precision: `9007199254740990.9`, `1e-400`) or is
    /// beyond `Int`, and is refused; its `Double` may have rounded the fraction away.
    private func validOrder(_ value: JSONValue, _ errors: inout [FieldError]) -> Int?? {
        switch value {
        case .null:
            return .some(nil)
        case .integer(let order) where Self.orderRange.contains(order):
            return .some(order)
        case .integer, .number:
            errors.append(
                FieldError(
                    field: "order",
                    message: "must be an integer from \(Self.orderRange.lowerBound) to \(Self.orderRange.upperBound)"))
            return nil
        default:
            errors.append(FieldError(field: "order", message: "must be an integer or null, not \(value.typeName)"))
            return nil
        }
    }

    private func validDueDate(_ value: JSONValue, _ errors: inout [FieldError]) -> CalendarDay?? {
        switch value {
        case .null:
            return .some(nil)
        case .string(let text):
            guard let day = CalendarDay(text) else {
                errors.append(FieldError(field: "dueDate", message: "must be a calendar day as YYYY-MM-DD"))
                return nil
            }
            return .some(day)
        default:
            errors.append(FieldError(field: "dueDate", message: "must be a YYYY-MM-DD string or null, not \(value.typeName)"))
            return nil
        }
    }
}
