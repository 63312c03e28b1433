/// One change as the journal keeps it. A `put` carries the whole to-do as stored (its revision
/// included), so replaying a record is idempotent; a `remove` carries the revision the removal
/// took from the to-do. `removeAll`'s revision is 0 (revisions are per to-do; journals written
/// before that hold a store-wide one there, which nothing reads).
enum JournalRecord: Equatable, Sendable {
    case put(Todo)
    case remove(id: String, revision: UInt64)
    case removeAll(revision: UInt64)

    private enum Kind: UInt8 {
        case put = 1, remove = 2, removeAll = 3
    }

    /// The kind byte of a named owner's record: the owner's name (`ByteWriter.string`), then the
    /// change's own payload (kind 1, 2 or 3). The shared list's records have no owner in them:
    /// they are exactly what journals written before owners hold.
    static let ownedKind: UInt8 = 4

    /// Appends the framed record: payload length (UInt32 LE), CRC-32C of the payload, payload
    /// (for a named owner: kind 4, the owner, then the change's payload).
    func frame(into bytes: inout [UInt8], owner: Owner = .shared) {
        let start = bytes.count
        bytes.append(contentsOf: [0, 0, 0, 0, 0, 0, 0, 0])
        // Move the bytes into the writer and back: a copy here would make framing many records
        // into one buffer (a snapshot) quadratic.
        var writer = ByteWriter(bytes: [])
        swap(&writer.bytes, &bytes)
        if !owner.isShared {
            writer.u8(Self.ownedKind)
            writer.string(owner.name)
        }
        writePayload(&writer)
        swap(&writer.bytes, &bytes)
        let length = bytes.count - start - 8
        let crc = bytes[(start + 8)...].withUnsafeBytes { CRC32C.checksum($0) }
        ByteWriter.store(UInt32(length), at: start, in: &bytes)
        ByteWriter.store(crc, at: start + 4, in: &bytes)
    }

    private func writePayload(_ writer: inout ByteWriter) {
        switch self {
        case .put(let todo):
            writer.u8(Kind.put.rawValue)
            writer.string(todo.id)
            writer.string(todo.title)
            writer.u8(todo.completed ? 1 : 0)
            writer.optionalI64(todo.order.map(Int64.init))
            writer.optionalI64(todo.dueDate.map { Int64($0.daysSinceEpoch) })
            writer.i64(todo.createdAt.millisecondsSinceEpoch)
            writer.i64(todo.updatedAt.millisecondsSinceEpoch)
            writer.u64(todo.revision)
        case .remove(let id, let revision):
            writer.u8(Kind.remove.rawValue)
            writer.string(id)
            writer.u64(revision)
        case .removeAll(let revision):
            writer.u8(Kind.removeAll.rawValue)
            writer.u64(revision)
        }
    }

    /// Decodes one payload whose checksum has been verified (a shared-list record: no owner in
    /// it); nil if it does not parse.
    init?(payload: UnsafeRawBufferPointer) {
        var reader = ByteReader(payload)
        guard let record = Self(reading: &reader), reader.isAtEnd else { return nil }
        self = record
    }

    /// Decodes a change's payload (kind 1, 2 or 3) from `reader`.
    fileprivate init?(reading reader: inout ByteReader) {
        guard let kind = reader.u8().flatMap(Kind.init(rawValue:)) else { return nil }
        switch kind {
        case .put:
            guard let id = reader.string(), let title = reader.string(), let completed = reader.u8(),
                let order = reader.optionalI64(), let due = reader.optionalI64(),
                let created = reader.i64(), let updated = reader.i64(), let revision = reader.u64()
            else { return nil }
            self = .put(
                Todo(
                    id: id, title: title, completed: completed == 1, order: order.value.map { Int($0) },
                    dueDate: due.value.map { CalendarDay(daysSinceEpoch: Int(Int32(truncatingIfNeeded: $0))) },
                    createdAt: Timestamp(millisecondsSinceEpoch: created),
                    updatedAt: Timestamp(millisecondsSinceEpoch: updated), revision: revision))
        case .remove:
            guard let id = reader.string(), let revision = reader.u64() else { return nil }
            self = .remove(id: id, revision: revision)
        case .removeAll:
            guard let revision = reader.u64() else { return nil }
            self = .removeAll(revision: revision)
        }
    }
}

/// A record as the journal and snapshots hold it: the change and whose to-dos it changes
/// (`Owner.shared`: the shared list, the only owner records written before owners had).
struct OwnedRecord: Equatable, Sendable {
    var owner: Owner
    var record: JournalRecord

    init(_ record: JournalRecord, of owner: Owner = .shared) {
        self.owner = owner
        self.record = record
    }

    /// Appends the framed record (`JournalRecord.frame`).
    func frame(into bytes: inout [UInt8]) {
        record.frame(into: &bytes, owner: owner)
    }

    /// Decodes one payload whose checksum has been verified; nil if it does not parse. A named
    /// owner's record (kind 4) must name a valid owner (`Owner.isValidName`: 1–128 bytes of the
    /// owner alphabet, checked before the name is read) and wrap a change's payload (kind 1, 2
    /// or 3, never another owner's record); anything else is damage.
    init?(payload: UnsafeRawBufferPointer) {
        var reader = ByteReader(payload)
        var owner = Owner.shared
        if payload.first == JournalRecord.ownedKind {
            _ = reader.u8()
            guard let name = reader.string(maxBytes: 128), let named = Owner(name: name) else { return nil }
            owner = named
        }
        guard let record = JournalRecord(reading: &reader), reader.isAtEnd else { return nil }
        self.owner = owner
        self.record = record
    }
}

/// Little-endian encoding of the journal's fields.
struct ByteWriter {
    var bytes: [UInt8]

    mutating func u8(_ value: UInt8) { bytes.append(value) }

    mutating func u32(_ value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func u64(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func i64(_ value: Int64) { u64(UInt64(bitPattern: value)) }

    mutating func optionalI64(_ value: Int64?) {
        u8(value == nil ? 0 : 1)
        if let value { i64(value) }
    }

    mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            u32(UInt32(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    static func store(_ value: UInt32, at offset: Int, in bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { raw in
            for index in 0..<4 { bytes[offset + index] = raw[index] }
        }
    }
}

/// Bounds-checked little-endian reads; every read answers nil past the end.
struct ByteReader {
    private let bytes: UnsafeRawBufferPointer
    private var offset = 0

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    var isAtEnd: Bool { offset == bytes.count }

    mutating func u8() -> UInt8? {
        guard offset < bytes.count else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func u32() -> UInt32? {
        guard bytes.count - offset >= 4 else { return nil }
        defer { offset += 4 }
        return UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    mutating func u64() -> UInt64? {
        guard bytes.count - offset >= 8 else { return nil }
        defer { offset += 8 }
        return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    mutating func i64() -> Int64? { u64().map { Int64(bitPattern: $0) } }

    /// A present-or-absent Int64; the outer nil means the bytes ran out or the flag is bad.
    mutating func optionalI64() -> (value: Int64?, Void)? {
        switch u8() {
        case 0: return (nil, ())
        case 1: return i64().map { ($0, ()) }
        default: return nil
        }
    }

    /// A length-prefixed UTF-8 string; nil past the end, when it is not UTF-8, or when its
    /// length is over `maxBytes` (then nothing past the length is read).
    mutating func string(maxBytes: Int = .max) -> String? {
        guard let length = u32().map(Int.init), length <= maxBytes, bytes.count - offset >= length else { return nil }
        defer { offset += length }
        let slice = UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)])
        return String(validating: slice.bindMemory(to: UInt8.self), as: UTF8.self)
    }
}
