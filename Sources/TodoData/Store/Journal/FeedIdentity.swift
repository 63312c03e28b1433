import Glibc

/// The data directory's own name for its change positions (`FEED-ID`, 16 hex digits, written once
/// and then read at every start): positions are tagged with it, so that a client's position from
/// another data directory (another server, or this one's directory replaced) is unknown here —
/// a resync — rather than read as a position in this directory's journal.
enum FeedIdentity {
    static let fileName = "FEED-ID"

    /// The tag of `directory`'s change positions, made and stored durably on first use. A file
    /// that does not hold 16 lower-case hex digits is replaced by a new name.
    static func tag(directory: String, random: () -> UInt64 = { UInt64.random(in: .min ... .max) }) throws(JournalError) -> String {
        let path = directory + "/" + fileName
        if let bytes = try? FileIO.readAll(path), let name = validName(bytes) { return "j" + name }
        var digits = String(random(), radix: 16)
        digits = String(repeating: "0", count: 16 - digits.utf8.count) + digits
        let temporary = path + ".tmp"
        unlink(temporary)
        let fd = try FileIO.openForAppend(temporary, create: true)
        do {
            try FileIO.writeAll(fd, Array((digits + "\n").utf8), path: temporary)
            try FileIO.sync(fd, path: temporary)
        } catch {
            close(fd)
            throw error
        }
        close(fd)
        try FileIO.rename(temporary, to: path)
        try FileIO.syncDirectory(directory)
        return "j" + digits
    }

    /// The name `bytes` hold (16 lower-case hex digits, a line end allowed), if they hold one.
    private static func validName(_ bytes: [UInt8]) -> String? {
        let digits = bytes.last == UInt8(ascii: "\n") ? bytes.dropLast() : bytes[...]
        guard digits.count == 16,
            digits.allSatisfy({
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0)
            })
        else { return nil }
        return String(decoding: digits, as: UTF8.self)
    }
}
