import Foundation
import Testing

@testable import TodoData
@testable import TodoDataTestSupport

@Suite("FeedIdentity: a data directory's own tag for its change positions")
struct FeedIdentityTests {

    private func made(_ directory: DataDirectory) throws {
        try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
    }

    private func contents(_ directory: DataDirectory) -> String? {
        try? String(contentsOfFile: directory.path + "/" + FeedIdentity.fileName, encoding: .utf8)
    }

    @Test("made once, durably, as 16 hex digits, then read back at every start")
    func madeOnceThenRead() throws {
        let directory = DataDirectory()
        try made(directory)
        #expect(try FeedIdentity.tag(directory: directory.path, random: { 0xAB }) == "j00000000000000ab")
        #expect(contents(directory) == "00000000000000ab\n")
        #expect(try FeedIdentity.tag(directory: directory.path, random: { 0xCD }) == "j00000000000000ab")
        #expect(!directory.files().contains(FeedIdentity.fileName + ".tmp"))
    }

    @Test("a file that holds no name is replaced by a new one", arguments: ["", "xyz\n", "00000000000000AB\n", "0000000000000000ab\n"])
    func damagedNameIsReplaced(_ damaged: String) throws {
        let directory = DataDirectory()
        try made(directory)
        try damaged.write(toFile: directory.path + "/" + FeedIdentity.fileName, atomically: false, encoding: .utf8)
        #expect(try FeedIdentity.tag(directory: directory.path, random: { 0x1234_5678_9ABC_DEF0 }) == "j123456789abcdef0")
        #expect(contents(directory) == "123456789abcdef0\n")
    }

    @Test("two data directories: positions of one are unknown to the other; the same directory reopened keeps its own")
    func positionsBelongToTheirDirectory() throws {
        let first = DataDirectory(), second = DataDirectory()
        let a = try first.open()
        let b = try second.open()
        defer { b.close() }
        #expect(a.changes.tag != b.changes.tag)
        #expect(a.changes.tag.hasPrefix("j") && a.changes.tag.utf8.count == 17)
        let token = a.changes.headToken
        #expect(a.changes.cursor(fromToken: token) != nil)
        #expect(b.changes.cursor(fromToken: token) == nil, "another directory's position is unknown: a resync")
        let tag = a.changes.tag
        a.close()
        let reopened = try first.open()
        defer { reopened.close() }
        #expect(reopened.changes.tag == tag)
        #expect(reopened.changes.cursor(fromToken: token) != nil, "a restart resumes")
    }
}
