import Hummingbird

/// A to-do as the API shows it; `order` and `dueDate` are written as `null` when absent.
struct Todo: ResponseCodable, Sendable {
    var id: String
    var title: String
    var completed: Bool
    var order: Int?
    var dueDate: String?
    var createdAt: String
    var updatedAt: String
    var url: String
    /// Store revision of the last change: the strong `ETag`.
    var revision: Int

    var entityTag: String { "\"\(revision)\"" }

    enum CodingKeys: String, CodingKey { case id, title, completed, order, dueDate, createdAt, updatedAt, url }

    init(
        id: String, title: String, completed: Bool, order: Int?, dueDate: String?,
        createdAt: String, updatedAt: String, url: String, revision: Int
    ) {
        (self.id, self.title, self.completed, self.order, self.dueDate) = (id, title, completed, order, dueDate)
        (self.createdAt, self.updatedAt, self.url, self.revision) = (createdAt, updatedAt, url, revision)
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        title = try c.decode(String.self, forKey: .title)
        completed = try c.decode(Bool.self, forKey: .completed)
        order = try c.decodeIfPresent(Int.self, forKey: .order)
        dueDate = try c.decodeIfPresent(String.self, forKey: .dueDate)
        createdAt = try c.decode(String.self, forKey: .createdAt)
        updatedAt = try c.decode(String.self, forKey: .updatedAt)
        url = try c.decode(String.self, forKey: .url)
        revision = 0
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(title, forKey: .title)
        try c.encode(completed, forKey: .completed)
        try c.encode(order, forKey: .order)
        try c.encode(dueDate, forKey: .dueDate)
        try c.encode(createdAt, forKey: .createdAt)
        try c.encode(updatedAt, forKey: .updatedAt)
        try c.encode(url, forKey: .url)
    }
}
