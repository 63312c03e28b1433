/// A to-do as the JSON body shows it: every field present (null when unset), RFC 3339 times,
/// the absolute url.
public struct TodoViewModel: JSONWritable, Sendable, Equatable {
    public var id: String
    public var title: String
    public var completed: Bool
    public var order: Int?
    public var dueDate: CalendarDay?
    public var createdAt: Timestamp
    public var updatedAt: Timestamp
    /// Scheme, host and port the url starts with.
    public var baseURL: String

    init(_ data: TodoData, baseURL: String) {
        id = data.id
        title = data.title
        completed = data.completed
        order = data.order
        dueDate = data.dueDate
        createdAt = data.createdAt
        updatedAt = data.updatedAt
        self.baseURL = baseURL
    }

    /// The absolute URL of the to-do, copied into a string of its size (interpolation cost ~1.5k
    /// instructions: four appends, and regrowing).
    public var url: String {
        let path = "/todos/"
        return String(unsafeUninitializedCapacity: baseURL.utf8.count + path.utf8.count + id.utf8.count) { buffer in
            var written = 0
            func put(_ part: String) {
                written += UnsafeMutableBufferPointer(rebasing: buffer[written...]).initialize(fromContentsOf: part.utf8)
            }
            put(baseURL)
            put(path)
            put(id)
            return written
        }
    }

    /// The members' names, punctuation, times, numbers and nulls take at most 200 bytes (192 with
    /// the longest timestamps and order); the id is written twice.
    static let fixedJSONBytes = 200

    /// What `write(to:)` reserves when the strings need no escape (`withCursor` adds a byte for a
    /// comma): a writer sized by the hint never regrows. It did, with a hint 11 bytes short: one more
    /// allocation and copy per answer.
    public var jsonSizeHint: Int { Self.fixedJSONBytes + 1 + 2 * id.utf8.count + title.utf8.count + baseURL.utf8.count }

    /// Members in name order. When the id, title and base URL need no escape (nearly always) the
    /// whole object is written in one reservation through a cursor; else member by member.
    public func write(to writer: inout JSONWriter) {
        // Through `utf8`'s contiguous storage: `withUTF8` is mutating, and the copies it needs
        // retained and released three strings per to-do.
        let written =
            id.utf8.withContiguousStorageIfAvailable { id in
                title.utf8.withContiguousStorageIfAvailable { title in
                    baseURL.utf8.withContiguousStorageIfAvailable { base in
                        writeInOneStep(to: &writer, id: id, title: title, base: base)
                    } ?? false
                } ?? false
            } ?? false
        if !written { writeMembers(to: &writer) }
    }

    private func writeInOneStep(
        to writer: inout JSONWriter, id: UnsafeBufferPointer<UInt8>, title: UnsafeBufferPointer<UInt8>,
        base: UnsafeBufferPointer<UInt8>
    ) -> Bool {
        guard JSONWriter.isClean(id), JSONWriter.isClean(title), JSONWriter.isClean(base), JSONCursor.fits(createdAt),
            JSONCursor.fits(updatedAt), JSONCursor.fits(dueDate)
        else { return false }
        writer.withCursor(maximum: Self.fixedJSONBytes + 2 * id.count + title.count + base.count) { cursor in
            cursor.raw(#"{"completed":"#)
            cursor.bool(completed)
            cursor.raw(#","createdAt":"#)
            cursor.timestamp(createdAt)
            cursor.raw(#","dueDate":"#)
            cursor.day(dueDate)
            cursor.raw(#","id":"#)
            cursor.quoted(clean: id)
            cursor.raw(#","order":"#)
            cursor.int(order)
            cursor.raw(#","title":"#)
            cursor.quoted(clean: title)
            cursor.raw(#","updatedAt":"#)
            cursor.timestamp(updatedAt)
            cursor.raw(#","url":""#)
            cursor.unquoted(clean: base)
            cursor.raw("/todos/")
            cursor.unquoted(clean: id)
            cursor.raw(#""}"#)
        }
        return true
    }

    /// The general path: any string, any year.
    private func writeMembers(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("completed")
        writer.bool(completed)
        writer.key("createdAt")
        writer.timestamp(createdAt)
        writer.key("dueDate")
        if let dueDate { writer.day(dueDate) } else { writer.null() }
        writer.key("id")
        writer.string(id)
        writer.key("order")
        if let order { writer.int(order) } else { writer.null() }
        writer.key("title")
        writer.string(title)
        writer.key("updatedAt")
        writer.timestamp(updatedAt)
        writer.key("url")
        writer.string(baseURL, "/todos/", id)
        writer.endObject()
    }
}
