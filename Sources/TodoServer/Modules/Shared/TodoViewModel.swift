/// A to-do as the JSON body shows it: every field present (null when unset), dates as text, absolute url.
public struct TodoViewModel: Encodable, Sendable, Equatable {
    public var id: String
    public var title: String
    public var completed: Bool
    public var order: Int?
    public var dueDate: String?
    public var createdAt: String
    public var updatedAt: String
    public var url: String

    init(_ data: TodoData, baseURL: String) {
        id = data.id
        title = data.title
        completed = data.completed
        order = data.order
        dueDate = data.dueDate?.description
        createdAt = data.createdAt.description
        updatedAt = data.updatedAt.description
        url = TodoViewModel.url(id: data.id, baseURL: baseURL)
    }

    /// The absolute URL of the to-do with `id`.
    static func url(id: String, baseURL: String) -> String {
        "\(baseURL)/todos/\(id)"
    }

    private enum CodingKeys: String, CodingKey {
        case id, title, completed, order, dueDate, createdAt, updatedAt, url
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(title, forKey: .title)
        try container.encode(completed, forKey: .completed)
        try container.encode(order, forKey: .order)
        try container.encode(dueDate, forKey: .dueDate)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(updatedAt, forKey: .updatedAt)
        try container.encode(url, forKey: .url)
    }
}
