/// The parts of an RFC 8536 TZif file that give offsets: transitions, their offsets, the offset
/// before the first one and the footer's rule for instants after the last one. Version 1 files
/// use their 32-bit data; later versions their 64-bit data and footer. Leap seconds are ignored
/// (the `right/` files that carry them are not accepted as zones).
struct TZifData {
    var transitions: [Int64] = []
    var transitionOffsets: [Int32] = []
    var initialOffset: Int32 = 0
    var rule: PosixTimeZoneRule?

    init?(parsing bytes: [UInt8]) {
        var reader = Reader(bytes: bytes)
        guard let header = reader.header() else { return nil }
        guard header.version != 0 else {
            guard reader.data(header, timeSize: 4, into: &self) else { return nil }
            return
        }
        // Skip the 32-bit block; the second header and the 64-bit block follow it.
        guard reader.skip(header.size(timeSize: 4)), let second = reader.header(),
            reader.data(second, timeSize: 8, into: &self)
        else { return nil }
        guard reader.byte() == 0x0A else { return nil }
        var footer: [UInt8] = []
        while let byte = reader.byte(), byte != 0x0A { footer.append(byte) }
        if !footer.isEmpty {
            guard let rule = PosixTimeZoneRule(parsing: footer) else { return nil }
            self.rule = rule
        }
    }

    struct Header {
        var version: UInt8
        var isUTCCount, isStandardCount, leapCount, timeCount, typeCount, characterCount: Int

        func size(timeSize: Int) -> Int {
            timeCount * (timeSize + 1) + typeCount * 6 + characterCount + leapCount * (timeSize + 4)
                + isStandardCount + isUTCCount
        }
    }

    struct Reader {
        let bytes: [UInt8]
        var offset = 0

        mutating func byte() -> UInt8? {
            guard offset < bytes.count else { return nil }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func skip(_ count: Int) -> Bool {
            guard count >= 0, bytes.count - offset >= count else { return false }
            offset += count
            return true
        }

        mutating func integer(size: Int) -> Int64? {
            guard bytes.count - offset >= size else { return nil }
            var value: UInt64 = 0
            for index in offset..<offset + size { value = value << 8 | UInt64(bytes[index]) }
            offset += size
            // Sign-extend from `size` bytes.
            let shift = UInt64(64 - size * 8)
            return Int64(bitPattern: value << shift) >> Int64(shift)
        }

        mutating func header() -> Header? {
            guard bytes.count - offset >= 44, bytes[offset..<offset + 4].elementsEqual("TZif".utf8) else { return nil }
            let version = bytes[offset + 4]
            guard version == 0 || (version >= 0x32 && version <= 0x34) else { return nil }
            offset += 20
            var counts: [Int] = []
            for _ in 0..<6 {
                guard let count = integer(size: 4), count >= 0, count < 1 << 20 else { return nil }
                counts.append(Int(count))
            }
            let header = Header(
                version: version, isUTCCount: counts[0], isStandardCount: counts[1], leapCount: counts[2],
                timeCount: counts[3], typeCount: counts[4], characterCount: counts[5])
            guard header.typeCount > 0 else { return nil }
            return header
        }

        /// Reads one data block into `zone`.
        mutating func data(_ header: Header, timeSize: Int, into zone: inout TZifData) -> Bool {
            guard bytes.count - offset >= header.size(timeSize: timeSize) else { return false }
            var times: [Int64] = []
            times.reserveCapacity(header.timeCount)
            for _ in 0..<header.timeCount { times.append(integer(size: timeSize)!) }
            var indices: [Int] = []
            for _ in 0..<header.timeCount { indices.append(Int(byte()!)) }
            var offsets: [Int32] = []
            for _ in 0..<header.typeCount {
                offsets.append(Int32(truncatingIfNeeded: integer(size: 4)!))
                offset += 2  // isdst, abbreviation index
            }
            guard indices.allSatisfy({ $0 < offsets.count }), zip(times, times.dropFirst()).allSatisfy({ $0 < $1 }) else { return false }
            offset += header.characterCount + header.leapCount * (timeSize + 4) + header.isStandardCount + header.isUTCCount
            zone.transitions = times
            zone.transitionOffsets = indices.map { offsets[$0] }
            zone.initialOffset = offsets[0]
            return true
        }
    }
}
