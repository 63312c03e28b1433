import EventHTTP
import Foundation
import Glibc
import TestSupport
import Testing

@Suite("HTTPDate: the Date field without evhttp's formatting", .tags(.singleThreaded))
struct HTTPDateTests {
    private func written(_ seconds: Int) -> String {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: HTTPDate.length + 1) { buffer in
            HTTPDate.write(secondsSinceEpoch: seconds, to: buffer.baseAddress!)
            return String(cString: buffer.baseAddress!)
        }
    }

    /// What Foundation writes with the format of RFC 9110's IMF-fixdate.
    private static let foundationFormatter: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter
    }()

    @Test(
        "known instants",
        arguments: [
            (0, "Thu, 01 Jan 1970 00:00:00 GMT"), (784_111_777, "Sun, 06 Nov 1994 08:49:37 GMT"),
            (1_795_341_600, "Sun, 22 Nov 2026 10:00:00 GMT"), (951_782_400, "Tue, 29 Feb 2000 00:00:00 GMT"),
            (253_402_300_799, "Fri, 31 Dec 9999 23:59:59 GMT"), (-1, "Wed, 31 Dec 1969 23:59:59 GMT"),
        ])
    func known(seconds: Int, text: String) {
        #expect(written(seconds) == text)
        #expect(written(seconds).utf8.count == HTTPDate.length)
    }

    /// From 1600: before October 1582 Foundation's Gregorian calendar is the Julian one, and this
    /// writer's (like the C library's) is proleptic.
    @Test("matches the C library's calendar and Foundation's DateFormatter for 20,000 random instants from 1600 to 9999")
    func random() {
        let seed = testSeed("HTTPDateTests")
        var generator = SplitMix64(seed: seed)
        var mismatches: [Int] = []
        for _ in 0..<20_000 {
            let seconds = Int.random(in: -11_676_096_000...253_402_300_799, using: &generator)
            let text = written(seconds)
            if text != imfFixdate(seconds) || text != Self.foundationFormatter.string(from: Date(timeIntervalSince1970: Double(seconds))) {
                mismatches.append(seconds)
            }
        }
        let first = mismatches.first.map {
            "\($0): \(written($0)) vs C \(imfFixdate($0)), Foundation \(Self.foundationFormatter.string(from: Date(timeIntervalSince1970: Double($0))))"
        }
        #expect(mismatches.isEmpty, "first: \(first ?? "")")
    }
}
