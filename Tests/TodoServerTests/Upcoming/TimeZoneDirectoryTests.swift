import Glibc
import Testing

@testable import TodoData
@testable import TodoServer

/// Zones named by requests are read from zoneinfo once and kept, up to a capacity; names that are
/// no zone are never kept.
@Suite("TimeZoneDirectory")
struct TimeZoneDirectoryTests {
    /// A zoneinfo folder of its own, with copies of the system's files, removed at the end.
    final class Folder {
        let path: String

        init() throws {
            var template = Array("/tmp/tzdir-XXXXXX".utf8CString)
            let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
            try #require(made != nil)
            path = String(cString: made!)
            try #require(mkdir(path + "/Europe", 0o755) == 0)
        }

        func copy(_ name: String) throws {
            let bytes = try #require(IANATimeZone.readSmallFile(IANATimeZone.systemDirectory + "/" + name))
            let fd = open(path + "/" + name, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            try #require(fd >= 0)
            defer { close(fd) }
            try #require(write(fd, bytes, bytes.count) == bytes.count)
        }

        func remove(_ name: String) { unlink(path + "/" + name) }

        deinit {
            for name in ["Europe/Berlin", "Europe/Paris", "Europe/Madrid"] { unlink(path + "/" + name) }
            rmdir(path + "/Europe")
            rmdir(path)
        }
    }

    @Test("a zone is read once: found again after its file is gone")
    func keptAfterFirstRead() throws {
        let folder = try Folder()
        try folder.copy("Europe/Berlin")
        let zones = TimeZoneDirectory(directory: folder.path)
        let first = try #require(zones.zone(named: "Europe/Berlin"))
        folder.remove("Europe/Berlin")
        let second = try #require(zones.zone(named: "Europe/Berlin"))
        #expect(first == second)
        // 2026-07-01T00:00:00Z: summer time, UTC+2.
        #expect(second.secondsFromGMT(atSecondsSinceEpoch: 1_782_864_000) == 7200)
        #expect(zones.count == 1)
    }

    @Test("a name that is no zone is not kept: a file added later is found")
    func missesAreNotKept() throws {
        let folder = try Folder()
        let zones = TimeZoneDirectory(directory: folder.path)
        #expect(zones.zone(named: "Europe/Paris") == nil)
        #expect(zones.zone(named: "Not/A_Zone") == nil)
        #expect(zones.count == 0)
        try folder.copy("Europe/Paris")
        #expect(zones.zone(named: "Europe/Paris")?.identifier == "Europe/Paris")
    }

    @Test("past the capacity zones are answered but read each time")
    func capacityBound() throws {
        let folder = try Folder()
        for name in ["Europe/Berlin", "Europe/Paris", "Europe/Madrid"] { try folder.copy(name) }
        let zones = TimeZoneDirectory(directory: folder.path, capacity: 2)
        for name in ["Europe/Berlin", "Europe/Paris", "Europe/Madrid"] {
            #expect(zones.zone(named: name)?.identifier == name)
        }
        #expect(zones.count == 2)
        for name in ["Europe/Berlin", "Europe/Paris", "Europe/Madrid"] { folder.remove(name) }
        #expect(zones.zone(named: "Europe/Berlin") != nil)
        #expect(zones.zone(named: "Europe/Paris") != nil)
        #expect(zones.zone(named: "Europe/Madrid") == nil, "the third was not kept")
    }
}
