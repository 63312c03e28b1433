import TodoData

/// The one writer of a to-do's JSON object: every member present (null when unset), RFC 3339 times,
/// the absolute url, members in name order as the contract lists them. The item, the list, upcoming
/// and the feed's events all write through it, so their bytes cannot drift apart. Two forms, the
/// same bytes: `object` into room reserved for strings known to need no escape, `members` for any.
enum TodoJSON {
    /// The members' names, punctuation, times, numbers and nulls take at most 200 bytes (192 with
    /// the longest timestamps and order); the id is written twice (as itself and in the url).
    static let fixedBytes = 200

    /// The most `object` writes for strings of these lengths in bytes.
    @inline(__always)
    static func maximumBytes(id: Int, title: Int, base: Int) -> Int { fixedBytes + 2 * id + title + base }

    /// Whether `object` can write these dates (years 0 to 9999; others take `members`).
    @inline(__always)
    static func fits(createdAt: Timestamp, updatedAt: Timestamp, dueDate: CalendarDay?) -> Bool {
        JSONCursor.fits(createdAt) && JSONCursor.fits(updatedAt) && JSONCursor.fits(dueDate)
    }

    /// The object through a cursor: `title` and `base` need no escape, and `id` writes the quoted
    /// id (which needs none) and answers its bytes, for the url.
    @inline(__always)
    static func object(
        completed: Bool, createdAt: Timestamp, dueDate: CalendarDay?, order: Int?, title: UnsafeBufferPointer<UInt8>,
        updatedAt: Timestamp, base: UnsafeBufferPointer<UInt8>, to cursor: inout JSONCursor,
        id: (inout JSONCursor) -> UnsafeBufferPointer<UInt8>
    ) {
        cursor.raw(#"{"completed":"#)
        cursor.bool(completed)
        cursor.raw(#","createdAt":"#)
        cursor.timestamp(createdAt)
        cursor.raw(#","dueDate":"#)
        cursor.day(dueDate)
        cursor.raw(#","id":"#)
        let idBytes = id(&cursor)
        cursor.raw(#","order":"#)
        cursor.int(order)
        cursor.raw(#","title":"#)
        cursor.quoted(clean: title)
        cursor.raw(#","updatedAt":"#)
        cursor.timestamp(updatedAt)
        cursor.raw(#","url":""#)
        cursor.unquoted(clean: base)
        cursor.raw(Route.todoPathPrefix)
        cursor.unquoted(clean: idBytes)
        cursor.raw(#""}"#)
    }

    /// The object member by member, escaping as needed: any string, any year.
    static func members(
        completed: Bool, createdAt: Timestamp, dueDate: CalendarDay?, id: UnsafeBufferPointer<UInt8>, order: Int?,
        title: UnsafeBufferPointer<UInt8>, updatedAt: Timestamp, base: UnsafeBufferPointer<UInt8>, to writer: inout JSONWriter
    ) {
        writer.beginObject()
        writer.key("completed")
        writer.bool(completed)
        writer.key("createdAt")
        writer.timestamp(createdAt)
        writer.key("dueDate")
        if let dueDate { writer.day(dueDate) } else { writer.null() }
        writer.key("id")
        writer.string(utf8: id)
        writer.key("order")
        if let order { writer.int(order) } else { writer.null() }
        writer.key("title")
        writer.string(utf8: title)
        writer.key("updatedAt")
        writer.timestamp(updatedAt)
        writer.key("url")
        writer.string(utf8: base, Route.todoPathPrefix, utf8: id)
        writer.endObject()
    }
}
