/// A change's kind as the bytes a retained change keeps (`PackedChanges`), and back: exactly the
/// values it had (the same ids, titles byte for byte, times, revision, order and due day), so that
/// a replay hands a reader the change a live reader got.
///
/// One header byte (the kind and the flags), then for a deletion the id, for a creation or an
/// update the id, `createdAt` (zigzag LEB128), `updatedAt - createdAt` (zigzag: 0 for a creation,
/// one byte), the revision (LEB128), the order and the due day when set (zigzag), and the title's
/// UTF-8 bytes to the record's end (its length is the record's). An id that is a lower-case UUID
/// is its 16 bytes; any other is its length (LEB128) and bytes. A creation with a UUID and a
/// 30-byte title: 55 bytes.
enum ChangeRecord {
    private static let created: UInt8 = 0
    private static let updated: UInt8 = 1
    private static let deleted: UInt8 = 2
    private static let cleared: UInt8 = 3
    private static let kindMask: UInt8 = 3
    /// The id is not a lower-case UUID: its length and bytes follow.
    private static let otherID: UInt8 = 4
    private static let completed: UInt8 = 8
    private static let hasOrder: UInt8 = 16
    private static let hasDueDate: UInt8 = 32
    /// Bytes a record needs besides its id's and its title's: the header, an id's length, four
    /// numbers of at most 10 bytes each and a due day's 5.
    private static let fixedMost = 1 + 10 + 4 * 10 + 5

    /// Runs `body` on the record of `kind` (valid inside `body` only). The to-do's strings are read
    /// where they are, never copied (a POST appends one change under the store's lock).
    static func withEncoded<R>(_ kind: StoreChangeKind, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        switch kind {
        case .cleared:
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1) { buffer in
                buffer[0] = cleared
                return body(UnsafeBufferPointer(buffer))
            }
        case .deleted(let id):
            return withUTF8(of: id) { idBytes in
                encode(header: deleted, id: idBytes, titleMost: 0, body) { _ in }
            }
        case .created(let todo):
            return encode(header: created, todo: todo, body)
        case .updated(let todo):
            return encode(header: updated, todo: todo, body)
        }
    }

    private static func encode<R>(header kind: UInt8, todo: Todo, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        var header = kind
        if todo.completed { header |= completed }
        if todo.order != nil { header |= hasOrder }
        if todo.dueDate != nil { header |= hasDueDate }
        return withUTF8(of: todo.id) { idBytes in
            withUTF8(of: todo.title) { titleBytes in
                encode(header: header, id: idBytes, titleMost: titleBytes.count, body) { writer in
                    let createdAt = todo.createdAt.millisecondsSinceEpoch
                    writer.signed(createdAt)
                    writer.signed(todo.updatedAt.millisecondsSinceEpoch &- createdAt)
                    writer.unsigned(todo.revision)
                    if let order = todo.order { writer.signed(Int64(order)) }
                    if let dueDate = todo.dueDate { writer.signed(Int64(dueDate.daysSinceEpoch)) }
                    writer.bytes(titleBytes)
                }
            }
        }
    }

    /// The header, the id, then what `rest` writes (at most `fixedMost` and `titleMost` bytes).
    private static func encode<R>(
        header: UInt8, id: UnsafeBufferPointer<UInt8>, titleMost: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R,
        rest: (inout Writer) -> Void
    ) -> R {
        let uuid = TodoID16(utf8: id)
        let most = fixedMost + (uuid == nil ? id.count : 16) + titleMost
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: most) { buffer in
            var writer = Writer(buffer: buffer)
            if let uuid {
                writer.byte(header)
                writer.word(uuid.high)
                writer.word(uuid.low)
            } else {
                writer.byte(header | otherID)
                writer.unsigned(UInt64(id.count))
                writer.bytes(id)
            }
            rest(&writer)
            return body(UnsafeBufferPointer(rebasing: buffer[..<writer.count]))
        }
    }

    /// Runs `body` on the UTF-8 bytes of `string` where they are (a native string's, on the stack
    /// for a small one).
    private static func withUTF8<R>(of string: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let result = string.utf8.withContiguousStorageIfAvailable(body) { return result }
        return Array(string.utf8).withUnsafeBufferPointer(body)
    }

    /// The kind `record` holds (one `withEncoded` gave).
    static func decode(_ record: UnsafeBufferPointer<UInt8>) -> StoreChangeKind {
        var reader = Reader(buffer: record)
        let header = reader.byte()
        let kind = header & kindMask
        if kind == cleared { return .cleared }
        let id: String
        if header & otherID == 0 {
            id = TodoID16(high: reader.word(), low: reader.word()).string
        } else {
            id = String(decoding: reader.bytes(Int(reader.unsigned())), as: UTF8.self)
        }
        if kind == deleted { return .deleted(id: id) }
        let createdAt = reader.signed()
        let updatedAt = createdAt &+ reader.signed()
        let revision = reader.unsigned()
        let order = header & hasOrder == 0 ? nil : Int(truncatingIfNeeded: reader.signed())
        let dueDate = header & hasDueDate == 0 ? nil : CalendarDay(daysSinceEpoch: Int(truncatingIfNeeded: reader.signed()))
        let title = String(decoding: reader.bytes(reader.remaining), as: UTF8.self)
        let todo = Todo(
            id: id, title: title, completed: header & completed != 0, order: order, dueDate: dueDate,
            createdAt: Timestamp(millisecondsSinceEpoch: createdAt), updatedAt: Timestamp(millisecondsSinceEpoch: updatedAt),
            revision: revision)
        return kind == created ? .created(todo) : .updated(todo)
    }

    private struct Writer {
        let buffer: UnsafeMutableBufferPointer<UInt8>
        var count = 0

        mutating func byte(_ value: UInt8) {
            buffer[count] = value
            count += 1
        }

        /// Eight bytes, least significant first.
        mutating func word(_ value: UInt64) {
            precondition(count + 8 <= buffer.count)
            UnsafeMutableRawPointer(buffer.baseAddress! + count).storeBytes(of: value.littleEndian, as: UInt64.self)
            count += 8
        }

        /// LEB128: seven bits a byte, least significant first, the top bit set on all but the last.
        mutating func unsigned(_ value: UInt64) {
            var value = value
            while value >= 0x80 {
                byte(UInt8(truncatingIfNeeded: value) | 0x80)
                value >>= 7
            }
            byte(UInt8(value))
        }

        /// Zigzag, then LEB128: small magnitudes of either sign take few bytes.
        mutating func signed(_ value: Int64) {
            unsigned(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
        }

        mutating func bytes(_ bytes: UnsafeBufferPointer<UInt8>) {
            guard let source = bytes.baseAddress else { return }
            precondition(count + bytes.count <= buffer.count)
            (buffer.baseAddress! + count).update(from: source, count: bytes.count)
            count += bytes.count
        }
    }

    private struct Reader {
        let buffer: UnsafeBufferPointer<UInt8>
        var index = 0

        var remaining: Int { buffer.count - index }

        mutating func byte() -> UInt8 {
            defer { index += 1 }
            return buffer[index]
        }

        mutating func word() -> UInt64 {
            precondition(index + 8 <= buffer.count)
            defer { index += 8 }
            return UInt64(littleEndian: UnsafeRawPointer(buffer.baseAddress! + index).loadUnaligned(as: UInt64.self))
        }

        mutating func unsigned() -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                let next = byte()
                value |= UInt64(next & 0x7F) << shift
                if next < 0x80 { return value }
                shift += 7
            }
        }

        mutating func signed() -> Int64 {
            let zigzag = unsigned()
            return Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1)
        }

        mutating func bytes(_ count: Int) -> UnsafeBufferPointer<UInt8> {
            precondition(count >= 0 && count <= remaining)
            defer { index += count }
            return UnsafeBufferPointer(rebasing: buffer[index..<(index + count)])
        }
    }
}
