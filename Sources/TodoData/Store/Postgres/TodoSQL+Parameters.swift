/// The text parameters of `TodoSQL`'s statements (PostgreSQL's text input formats; nil is NULL).
extension TodoSQL {
    static func text(_ value: Bool) -> String { value ? "t" : "f" }

    /// `{3,4}`: a bigint[] literal.
    static func array(_ revisions: [UInt64]) -> String {
        "{" + revisions.map(String.init).joined(separator: ",") + "}"
    }

    static func insertParameters(_ todo: Todo, owner: Owner = .shared) -> [String?] {
        [
            todo.id, todo.title, TodoTitleKey.fold(todo.title), text(todo.completed), todo.order.map(String.init),
            todo.dueDate?.description, String(todo.createdAt.millisecondsSinceEpoch),
            String(todo.updatedAt.millisecondsSinceEpoch), TodoTitleKey.exact(todo.title), owner.name,
        ]
    }

    /// The revisions a `bigint` column can hold (1...2^63-1): no other names a stored to-do.
    static func storable(_ revisions: [UInt64]) -> [UInt64] {
        revisions.filter { $0 >= 1 && $0 <= UInt64(Int64.max) }
    }

    /// Whether a `q=` needle can be in some title: a title never holds a control character
    /// (`TodoInput` refuses them, U+0000 included, which a text parameter cannot carry), so a
    /// needle with one matches nothing, in memory as here, and is answered without a statement.
    static func canMatchATitle(_ needle: String) -> Bool {
        !needle.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    static func listParameters(_ query: TodoQuery, owner: Owner = .shared) -> [String?] {
        [
            query.completed.map(text), query.titleContains.map(TodoTitleKey.fold), String(query.limit),
            String(query.offset), owner.name,
        ]
    }

    static func upcomingParameters(from: CalendarDay, through: CalendarDay, owner: Owner = .shared) -> [String?] {
        [from.description, through.description, owner.name]
    }

    /// A condition as `condition(match:noneAny:none:)` reads it: the If-Match revisions (nil for none
    /// or `*`: an existing row passes both), whether If-None-Match is `*`, its revisions.
    struct Condition: Equatable {
        var ifMatch: [UInt64]?
        var ifNoneMatchAny = false
        var ifNoneMatch: [UInt64]?

        var parameters: [String?] {
            [ifMatch.map(TodoSQL.array), TodoSQL.text(ifNoneMatchAny), ifNoneMatch.map(TodoSQL.array)]
        }
    }

    /// A field an update sets (`value` nil clears it) or keeps (nil).
    struct FieldChange<Value> {
        var value: Value?
    }

    static func updateParameters(
        id: String, title: String?, completed: Bool?, order: FieldChange<Int>?, dueDate: FieldChange<CalendarDay>?,
        condition: Condition, at time: Timestamp, owner: Owner = .shared
    ) -> [String?] {
        [
            id, title, title.map(TodoTitleKey.fold), completed.map(text), text(order != nil),
            order?.value.map(String.init), text(dueDate != nil), dueDate?.value?.description,
        ] + condition.parameters + [String(time.millisecondsSinceEpoch), title.map(TodoTitleKey.exact), owner.name]
    }

    static func removeParameters(id: String, condition: Condition, owner: Owner = .shared) -> [String?] {
        [id] + condition.parameters + [owner.name]
    }

    /// Whether `id` is a to-do id as this server makes them (a UUID in lower case): anything else
    /// names no to-do, and is not sent (the uuid column would refuse it as a bad value).
    static func isTodoID(_ id: String) -> Bool {
        let bytes = Array(id.utf8)
        guard bytes.count == 36 else { return false }
        for (index, byte) in bytes.enumerated() {
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
                else { return false }
            }
        }
        return true
    }
}
