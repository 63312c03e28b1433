import Foundation
import TestSupport
import Testing

@testable import TodoData
@testable import TodoServer

/// `IANATimeZone` (the zoneinfo reader that replaced Foundation's ICU `TimeZone`) against
/// Foundation's `TimeZone` itself, which the tests may still link.
@Suite("IANATimeZone", .tags(.singleThreaded))
struct IANATimeZoneTests {
    /// Instants from 1970 to 2200, about every 9.7 days, shifted through the day. Before 1970 the
    /// data differ, not the code: Debian's tzdata is built with the backzone file, which gives
    /// zones that are links in the main data (Africa/Addis_Ababa → Africa/Nairobi) their own local
    /// mean time, and ICU's data does not.
    private static func instants() -> [Int64] {
        stride(from: Int64(0), through: 7_258_118_400, by: 839_993).map { $0 }
    }

    @Test("every zone ICU knows loads, with ICU's offsets from 1970 to 2200 (zoneinfo data up to 2037, the footer's rule after)")
    func everyKnownZoneMatchesFoundation() throws {
        var compared = 0
        var mismatches: [String] = []
        for identifier in TimeZone.knownTimeZoneIdentifiers {
            let foundation = try #require(TimeZone(identifier: identifier))
            guard let zone = IANATimeZone(identifier: identifier) else {
                mismatches.append("\(identifier): not loaded")
                continue
            }
            for seconds in Self.instants() {
                let expected = foundation.secondsFromGMT(for: Date(timeIntervalSince1970: Double(seconds)))
                let actual = zone.secondsFromGMT(atSecondsSinceEpoch: seconds)
                compared += 1
                if expected != actual {
                    mismatches.append("\(identifier) at \(seconds): ICU \(expected), zoneinfo \(actual)")
                    break
                }
            }
        }
        #expect(compared > 100_000)
        #expect(mismatches == [])
    }

    private static let legacyNames: Set = ["CET", "CST6CDT", "EET", "EST", "EST5EDT", "HST", "MET", "MST", "MST7MDT", "PST8PDT", "WET"]

    /// The zone files of `/usr/share/zoneinfo` by name, without the `posix/` and `right/` copies.
    private static func zoneinfoNames() -> [String] {
        let root = IANATimeZone.systemDirectory
        let files = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []
        return files.filter { name in
            var isDirectory: ObjCBool = false
            return !name.hasPrefix("posix/") && !name.hasPrefix("right/") && IANATimeZone.isZoneName(name)
                && FileManager.default.fileExists(atPath: root + "/" + name, isDirectory: &isDirectory) && !isDirectory.boolValue
        }.sorted()
    }

    @Test(
        "every zone file Foundation also knows: ICU's offsets at seeded random instants from 1970 to 2200 and a second around transitions")
    func randomInstantsInZoneinfoMatchFoundation() throws {
        let seed = testSeed("IANATimeZoneTests")
        var generator = SplitMix64(seed: seed)
        var zones = 0, compared = 0
        var mismatches: [String] = []
        for name in Self.zoneinfoNames() {
            // Files that are no zone (`zone.tab`, `leapseconds`, …) fail to load: only zones are compared.
            // The data differ for the legacy rule names that tzdata 2024b made links (EET → Europe/Athens):
            // ICU's data follow the link, Debian's files keep the old zones.
            guard !Self.legacyNames.contains(name), let zone = IANATimeZone(identifier: name), let foundation = TimeZone(identifier: name)
            else { continue }
            zones += 1
            var instants = (0..<60).map { _ in Int64.random(in: 0...7_258_118_400, using: &generator) }
            let transitions = zone.transitions.filter { $0 >= 1 && $0 <= 7_258_118_400 }
            for _ in 0..<min(20, transitions.count) {
                let transition = transitions[Int.random(in: 0..<transitions.count, using: &generator)]
                instants += [transition - 1, transition, transition + 1]
            }
            for seconds in instants {
                let expected = foundation.secondsFromGMT(for: Date(timeIntervalSince1970: Double(seconds)))
                compared += 1
                if zone.secondsFromGMT(atSecondsSinceEpoch: seconds) != expected {
                    mismatches.append(
                        "\(name) at \(seconds): ICU \(expected), zoneinfo \(zone.secondsFromGMT(atSecondsSinceEpoch: seconds))")
                    break
                }
            }
        }
        print("IANATimeZoneTests: \(zones) zones, \(compared) instants compared")
        #expect(zones > 300)
        #expect(mismatches == [])
    }

    @Test("offsets around the 2026 transitions of a northern and a southern zone, and in 2090 from the footer rule")
    func transitions() throws {
        let berlin = try #require(IANATimeZone(identifier: "Europe/Berlin"))
        // 2026-03-29T01:00:00Z and 2026-10-25T01:00:00Z.
        #expect(berlin.secondsFromGMT(atSecondsSinceEpoch: 1_774_746_000 - 1) == 3600)
        #expect(berlin.secondsFromGMT(atSecondsSinceEpoch: 1_774_746_000) == 7200)
        #expect(berlin.secondsFromGMT(atSecondsSinceEpoch: 1_792_890_000 - 1) == 7200)
        #expect(berlin.secondsFromGMT(atSecondsSinceEpoch: 1_792_890_000) == 3600)
        // 2090-07-01 and 2090-01-01 (past the file's transitions: CET-1CEST,M3.5.0,M10.5.0/3).
        #expect(berlin.secondsFromGMT(atSecondsSinceEpoch: 3_802_550_400) == 7200)
        #expect(berlin.secondsFromGMT(atSecondsSinceEpoch: 3_786_912_000) == 3600)
        let sydney = try #require(IANATimeZone(identifier: "Australia/Sydney"))
        #expect(sydney.secondsFromGMT(atSecondsSinceEpoch: 3_802_550_400) == 36_000)
        #expect(sydney.secondsFromGMT(atSecondsSinceEpoch: 3_786_912_000) == 39_600)
        let kolkata = try #require(IANATimeZone(identifier: "Asia/Kolkata"))
        #expect(kolkata.secondsFromGMT(atSecondsSinceEpoch: 1_780_000_000) == 19_800)
        #expect(IANATimeZone.utc.secondsFromGMT(atSecondsSinceEpoch: 1_780_000_000) == 0)
    }

    @Test("names: the ones ICU accepts load, the ones it refuses do not, as Foundation decides")
    func namesAsFoundation() {
        let names = [
            "UTC", "GMT", "Etc/UTC", "Etc/GMT+2", "EST", "US/Pacific", "Zulu", "Factory", "GMT0",
            "GMT+2", "GMT-2", "GMT+02", "GMT+0230", "GMT+02:30", "GMT+18", "GMT+19", "GMT+2:3", "UTC+2", "UTC-11",
            "Nope/Zone", "Nowhere", "Mars/Base", "utc", "europe/berlin", "Europe/Berlin ", "", "posixrules", "localtime",
            "posix/Europe/Berlin", "right/Europe/Berlin", "zone.tab", "../zoneinfo/UTC", "Europe/../UTC", "/UTC",
            "Europe//Berlin", "Europe/Berlin/", "Europe",
        ]
        for name in names {
            let foundation = TimeZone(identifier: name)
            let zone = IANATimeZone(identifier: name)
            #expect((zone != nil) == (foundation != nil), "\(name)")
            if let foundation, let zone {
                #expect(
                    zone.secondsFromGMT(atSecondsSinceEpoch: 1_780_000_000)
                        == foundation.secondsFromGMT(for: Date(timeIntervalSince1970: 1_780_000_000)), "\(name)")
            }
        }
    }

    @Test("POSIX rules: Julian days with and without the leap day, the default US rule, all-year daylight time, bad rules")
    func posixRules() throws {
        // J60 is March 1 even in a leap year; 59 (0-based) is February 29 in 2028.
        let julian = try #require(PosixTimeZoneRule(parsing: Array("AAA-1BBB,J60/0,300/0".utf8)))
        // 2028-02-29T12:00Z is before J60 (2028-03-01 00:00 local); 2028-03-01T12:00Z after.
        #expect(julian.offset(at: 1_835_438_400) == 3600)
        #expect(julian.offset(at: 1_835_524_800) == 7200)
        // Day 300 (0-based) of 2028 is October 27 in a leap year: the 26th is still daylight time.
        #expect(julian.offset(at: 1_856_174_400) == 7200)
        #expect(julian.offset(at: 1_856_347_200) == 3600)
        // No rule after the daylight name: the US rule (second Sunday of March, first of November).
        let us = try #require(PosixTimeZoneRule(parsing: Array("EST5EDT".utf8)))
        #expect(us.standardOffset == -18_000)
        #expect(us.offset(at: 1_772_953_200 - 1) == -18_000)  // 2026-03-08T06:59:59Z
        #expect(us.offset(at: 1_772_953_200) == -14_400)
        // Daylight time all year (the form zic writes for permanent DST).
        let always = try #require(PosixTimeZoneRule(parsing: Array("<-03>3<-02>,0/0,J365/25".utf8)))
        for seconds in stride(from: Int64(1_767_225_600), to: 1_798_761_600, by: 86_400 * 7) {
            #expect(always.offset(at: seconds) == -7200)
        }
        #expect(PosixTimeZoneRule(parsing: Array("<+0530>-5:30".utf8))?.offset(at: 0) == 19_800)
        for bad in [
            "", "AB-1", "CET", "CET-1CEST,M3.5.0", "CET-1CEST,M13.5.0,M10.5.0", "CET-1CEST,M3.6.0,M10.5.0", "CET-1CEST,J0,J100",
            "CET-1CEST,M3.5.0,M10.5.0/3x", "<+05-5",
        ] {
            #expect(PosixTimeZoneRule(parsing: Array(bad.utf8)) == nil, "\(bad)")
        }
    }

    @Test("a file that is not TZif, a truncated one, and one from another directory")
    func files() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tz-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory + "/Test", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let berlin = try Data(contentsOf: URL(fileURLWithPath: IANATimeZone.systemDirectory + "/Europe/Berlin"))
        try berlin.write(to: URL(fileURLWithPath: directory + "/Test/Whole"))
        try berlin.prefix(berlin.count / 2).write(to: URL(fileURLWithPath: directory + "/Test/Half"))
        try Data("not a zone\n".utf8).write(to: URL(fileURLWithPath: directory + "/Test/Text"))
        let whole = try #require(IANATimeZone(identifier: "Test/Whole", directory: directory))
        #expect(whole.secondsFromGMT(atSecondsSinceEpoch: 1_774_746_000) == 7200)
        #expect(IANATimeZone(identifier: "Test/Half", directory: directory) == nil)
        #expect(IANATimeZone(identifier: "Test/Text", directory: directory) == nil)
        #expect(IANATimeZone(identifier: "Test", directory: directory) == nil)  // a directory
        #expect(IANATimeZone(identifier: "Europe/Berlin", directory: directory) == nil)
    }
}
