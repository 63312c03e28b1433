import Foundation
import Hummingbird

/// Any JSON object key, to find the fields a body has that the API does not know.
struct AnyKey: CodingKey {
    var stringValue: String
    init(stringValue: String) { self.stringValue = stringValue }
    var intValue: Int? { nil }
    init?(intValue: Int) { nil }
}

/// The body of POST and PUT, and of PATCH (a JSON merge patch: absent keeps, `null` clears).
/// Read-only fields are ignored; any other unknown field is rejected with 422.
struct TodoInput: Decodable {
    var title: String?
    var completed: Bool?
    /// nil: absent; .some(nil): `null`.
    var order: Int??
    var dueDate: String??
    var unknownFields: [String]

    enum CodingKeys: String, CodingKey { case title, completed, order, dueDate }
    static let readOnly: Set<String> = ["id", "url", "createdAt", "updatedAt"]

    init(from decoder: any Decoder) throws {
        let keys = try decoder.container(keyedBy: AnyKey.self).allKeys.map(\.stringValue)
        unknownFields = keys.filter { CodingKeys(rawValue: $0) == nil && !Self.readOnly.contains($0) }.sorted()
        let c = try decoder.container(keyedBy: CodingKeys.self)
        title = try c.decodeIfPresent(String.self, forKey: .title)
        completed = try c.decodeIfPresent(Bool.self, forKey: .completed)
        if c.contains(.order) { order = try c.decodeNil(forKey: .order) ? .some(nil) : try c.decode(Int.self, forKey: .order) }
        if c.contains(.dueDate) {
            dueDate = try c.decodeNil(forKey: .dueDate) ? .some(nil) : try c.decode(String.self, forKey: .dueDate)
        }
    }

    /// The contract's rules: title 1–500 characters after trimming (required unless patching),
    /// `dueDate` as `YYYY-MM-DD`, no unknown fields. Throws 422 naming every bad field.
    func validated(requireTitle: Bool) throws -> TodoInput {
        var problems = unknownFields.map { "\($0) is not a known field" }
        var input = self
        if let title {
            let trimmed = title.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.isEmpty || trimmed.count > 500 { problems.append("title must be 1 to 500 characters") }
            input.title = trimmed
        } else if requireTitle {
            problems.append("title is required")
        }
        if case .some(.some(let day)) = dueDate, !Self.isCalendarDay(day) {
            problems.append("dueDate must be a day as YYYY-MM-DD")
        }
        guard problems.isEmpty else { throw HTTPError(.unprocessableContent, message: problems.joined(separator: "; ")) }
        return input
    }

    static func isCalendarDay(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let month = Int(parts[1]), let day = Int(parts[2]), Int(parts[0]) != nil
        else { return false }
        return (1...12).contains(month) && (1...31).contains(day)
    }
}
