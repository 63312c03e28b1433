import Glibc

/// The byte layout of journal and snapshot files.
///
/// A file starts with an 8-byte magic, a format version (UInt32) and its generation (UInt64); a
/// snapshot adds a store revision (0: revisions are per to-do, in the records) and the to-do count (UInt64 each). Then come framed records:
/// payload length (UInt32), CRC-32C of the payload (UInt32), payload (`JournalRecord`; a named
/// owner's wrapped in kind 4 with the owner's name, `OwnedRecord`; the shared list's as before
/// owners, so that files written before them read as the shared list's, and the version stays 1).
/// Snapshot `G` holds the state at the start of journal `G`; all integers are little-endian.
enum JournalFormat {
    static let version: UInt32 = 1
    static let journalMagic = Array("TODOJRNL".utf8)
    static let snapshotMagic = Array("TODOSNAP".utf8)
    static let journalHeaderSize = 20
    static let snapshotHeaderSize = 36
    /// No record is larger (a title is at most a few KiB): a bigger length is a torn or damaged frame.
    static let maxRecordBytes = 16 << 20

    static func journalName(_ generation: UInt64) -> String { "journal-\(padded(generation)).log" }
    static func snapshotName(_ generation: UInt64) -> String { "snapshot-\(padded(generation)).bin" }

    /// The generation in a journal or snapshot file name, or nil for other files.
    static func generation(of name: String, prefix: String, suffix: String) -> UInt64? {
        guard name.hasPrefix(prefix), name.hasSuffix(suffix) else { return nil }
        return UInt64(name.dropFirst(prefix.count).dropLast(suffix.count))
    }

    static func journalHeader(generation: UInt64) -> [UInt8] {
        var writer = ByteWriter(bytes: journalMagic)
        writer.u32(version)
        writer.u64(generation)
        return writer.bytes
    }

    static func snapshotHeader(generation: UInt64, revision: UInt64, count: Int) -> [UInt8] {
        var writer = ByteWriter(bytes: snapshotMagic)
        writer.u32(version)
        writer.u64(generation)
        writer.u64(revision)
        writer.u64(UInt64(count))
        return writer.bytes
    }

    private static func padded(_ generation: UInt64) -> String {
        let digits = String(generation)
        return String(repeating: "0", count: max(0, 16 - digits.count)) + digits
    }
}

/// The records of one file, and how far its bytes were whole.
struct ScannedRecords {
    var records: [OwnedRecord] = []
    /// Bytes from the start of the file through the last whole record.
    var validLength: Int
    /// Bytes after it: a record torn by a crash, or damage.
    var trailingBytes: Int
}

extension JournalFormat {
    /// Checks the header of `bytes` (magic, version) and answers where the records start.
    static func checkHeader(_ bytes: [UInt8], magic: [UInt8], headerSize: Int, path: String) throws(JournalError) {
        guard bytes.count >= headerSize else { throw .corrupt(path: path, offset: bytes.count, reason: "header cut short") }
        guard Array(bytes[0..<8]) == magic else { throw .notAJournal(path: path) }
        let found = bytes.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: 8, as: UInt32.self)) }
        guard found == version else { throw .unknownVersion(path: path, found: found, supported: version) }
    }

    /// Reads the framed records from `start`, stopping at the first one that is cut short, fails
    /// its checksum, or does not decode.
    static func scanRecords(_ bytes: [UInt8], from start: Int) -> ScannedRecords {
        var scanned = ScannedRecords(validLength: start, trailingBytes: 0)
        bytes.withUnsafeBytes { raw in
            var offset = start
            while raw.count - offset >= 8 {
                let length = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
                let crc = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self))
                guard length <= maxRecordBytes, raw.count - offset - 8 >= length else { break }
                let payload = UnsafeRawBufferPointer(rebasing: raw[(offset + 8)..<(offset + 8 + length)])
                guard CRC32C.checksum(payload) == crc, let record = OwnedRecord(payload: payload) else { break }
                scanned.records.append(record)
                offset += 8 + length
            }
            scanned.validLength = offset
        }
        scanned.trailingBytes = bytes.count - scanned.validLength
        return scanned
    }
}

extension JournalFormat {
    /// How many whole records follow damage at `offset`: finds the first later position where a
    /// frame's length, checksum and contents all hold, and counts the records from there. 0 means
    /// nothing whole follows: a record torn by a crash, which may be cut off.
    static func recordsAfterDamage(_ bytes: [UInt8], from offset: Int) -> Int {
        bytes.withUnsafeBytes { raw in
            var position = offset + 1
            while raw.count - position > 8 {
                let length = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: position, as: UInt32.self)))
                let kind = raw[position + 8]
                if length >= 1, length <= maxRecordBytes, raw.count - position - 8 >= length, (1...4).contains(kind) {
                    let crc = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: position + 4, as: UInt32.self))
                    let payload = UnsafeRawBufferPointer(rebasing: raw[(position + 8)..<(position + 8 + length)])
                    if CRC32C.checksum(payload) == crc, OwnedRecord(payload: payload) != nil {
                        return scanRecords(bytes, from: position).records.count
                    }
                }
                position += 1
            }
            return 0
        }
    }
}
