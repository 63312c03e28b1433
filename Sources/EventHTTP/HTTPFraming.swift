import HTTPValues

/// Follows one connection's request byte stream as RFC 9112 frames it (request line, header
/// fields, Content-Length and chunked bodies, trailers), so that it knows where each request
/// starts and ends, and refuses what RFC 9112 does not allow.
///
/// Pure and allocation-free on accepted input: bytes in, `FramingEvents` out. The event loop feeds
/// it every byte read from a connection (`HTTPConnection`), and carries out its decisions.
struct HTTPFraming {
    struct Limits: Sendable {
        /// Request line plus header fields (and, separately, the trailer section), in bytes.
        var maxHeadBytes: Int
        /// Largest body, declared (Content-Length) or summed over chunks.
        var maxBodyBytes: Int
        /// Longest chunk-size line, extensions included.
        var maxChunkLineBytes: Int
    }

    /// Why the stream is refused, and where.
    struct Refusal: Equatable, Sendable {
        var status: Int
        var detail: String
        /// Stream offset of the start of the line where the refusal
        /// applies: the bytes from here on are replaced.
        var cutOffset: Int
    }

    let limits: Limits
    /// Bytes consumed so far: stream offsets count from the connection's first byte.
    private(set) var position = 0
    private var state = State.requestStart
    /// Where the current line starts.
    private var lineStart = 0
    private var headBytes = 0
    private var emptyLineBytes = 0
    private var methodCode: UInt64 = 0
    private var methodLength = 0
    private var versionIndex = 0
    private var major: UInt8 = 0
    private var minor: UInt8 = 0
    private var name = FieldName()
    private var field = Field.other
    private var valueState: UInt8 = 0
    private var contentLength = WireNumber(radix: .decimal)
    private var contentLengths = 0
    private var hosts = 0
    private var transferCodings = 0
    private var lastCodingIsChunked = false
    private var coding = FieldName()
    private var codingHasParameters = false
    private var codingSpaceSeen = false
    private var transferEncodingFields = 0
    private var remaining = 0
    private var bodyBytes = 0
    private var chunkSize = WireNumber(radix: .hexadecimal)
    private var chunkLineBytes = 0
    private var extensionStart = -1
    private var extensionHasSemicolon = false
    /// Where in a chunk extension's grammar the line is (`ExtensionPart`).
    private var extensionPart = ExtensionPart.beforeSemicolon
    private var targetStart = 0
    private var authorityStart = 0
    /// Progress through "http://" or "https://" at the start of the target, 8 once in the authority,
    /// -1 when the target is not in absolute form (or is rewritten already).
    private var schemeIndex = -1

    init(limits: Limits) {
        self.limits = limits
    }

    /// Nothing more is read: the stream was refused.
    var isFinished: Bool { state == .refused || state == .discarding }

    /// Between requests: no part of a request is pending.
    var isIdle: Bool { state == .requestStart }

    /// Something of the next request has arrived: part of its head, or empty lines before its
    /// request line (RFC 9112 §2.2 lets a server skip those, not wait for them for ever: a client
    /// sending one now and then must not keep the connection past the head's time-out).
    var headBegun: Bool { state != .requestStart || emptyLineBytes > 0 }

    /// Stream offset of the current (or last) request line's first byte.
    private(set) var requestStart = 0
    /// Body bytes (a `Content-Length` body's, or chunk data) are reported as
    /// `FramingEvents.bodySpans`: the connection copies a body out of them as it arrives.
    var recordsBodySpans = false

    /// Reads `bytes`, the next bytes of the stream, and adds what happened to `events`. After a
    /// refusal or once discarding, bytes are only counted. With `stoppingAtBoundary`, returns right
    /// after the first head or message completes, the stream is refused or its rest discarded;
    /// returns the count of bytes read (all of them otherwise).
    ///
    /// `step` reads one byte at a time and is the reference: the `take…` fast paths read a whole unit
    /// (a method, a field name, a line end…) at once only when all of it is in `bytes`, is well formed
    /// and fits under the head limit, and leave the state exactly as `step` would; otherwise they take
    /// nothing and `step` reads the next byte (so partial input and every refusal go through `step`).
    @discardableResult
    mutating func consume(_ bytes: UnsafeRawBufferPointer, into events: inout FramingEvents, stoppingAtBoundary: Bool = false) -> Int {
        var index = 0
        let count = bytes.count
        let heads = events.headsCompleted, messages = events.messagesCompleted
        while index < count {
            let taken: Int
            switch state {
            case .refused, .discarding:
                if stoppingAtBoundary { return index }
                position += count - index
                return count
            case .body, .chunkData:
                taken = takeBody(count - index, &events)
            case .requestStart:
                taken = takeMethod(bytes, from: index)
            case .target:
                taken = takeTarget(bytes, from: index)
            case .version:
                taken = takeVersion(bytes, from: index)
            case .fieldStart:
                taken = bytes[index] == cr ? takeHeadEnd(bytes, from: index, &events) : takeFieldName(bytes, from: index)
            case .fieldValue:
                taken = takeFieldValue(bytes, from: index, &events)
            default:
                taken = 0
            }
            if taken > 0 {
                index += taken
                position += taken
            } else {
                step(bytes[index], &events)
                index += 1
                position += 1
            }
            if stoppingAtBoundary,
                events.headsCompleted != heads || events.messagesCompleted != messages || state == .refused || state == .discarding
            {
                return index
            }
        }
        return count
    }

    // MARK: - Fast paths: whole units at once (`position` is the offset of `bytes[index]`)

    /// The end (exclusive) of the bytes from `index` on that the head limit still lets `countHeadByte`
    /// accept, at most `count`.
    @inline(__always) private func headWindowEnd(from index: Int, _ count: Int) -> Int {
        index + min(count - index, max(0, limits.maxHeadBytes - headBytes))
    }

    /// Body or chunk data: up to `available` bytes of what remains of it.
    private mutating func takeBody(_ available: Int, _ events: inout FramingEvents) -> Int {
        let taken = min(remaining, available)
        if recordsBodySpans, taken > 0 {
            if let last = events.bodySpans.last, last.upperBound == position {
                events.bodySpans[events.bodySpans.count - 1] = last.lowerBound..<position + taken
            } else {
                events.bodySpans.append(position..<position + taken)
            }
        }
        remaining -= taken
        if remaining == 0 {
            if state == .body { messageComplete(&events) } else { state = .chunkDataEnd }
        }
        return taken
    }

    /// A request's method (1 to 32 tchars) and the space after it.
    private mutating func takeMethod(_ bytes: UnsafeRawBufferPointer, from index: Int) -> Int {
        // The first byte sets headBytes to 1; the method's other bytes and the space are checked
        // against the limit, so the space may be at most `maxHeadBytes - 1` bytes after the first.
        let last = index + min(bytes.count - index - 1, 32, limits.maxHeadBytes - 1)
        var scan = index
        var code: UInt64 = 0
        while scan <= last {
            let byte = bytes[scan]
            if byte == space { break }
            guard isTokenCharacter(byte) else { return 0 }
            if scan - index < 8 { code |= UInt64(byte) << (8 * UInt64(scan - index)) }
            scan += 1
        }
        guard scan > index, scan <= last else { return 0 }
        let length = scan - index
        beginRequest()
        methodCode = code
        methodLength = length
        headBytes += length
        beginTarget(afterSpaceAt: position + length)
        return length + 1
    }

    /// Origin-form target bytes (visible ASCII), and the space that ends the target when it is there.
    private mutating func takeTarget(_ bytes: UnsafeRawBufferPointer, from index: Int) -> Int {
        let end = headWindowEnd(from: index, bytes.count)
        if schemeIndex == 0 {
            // The target's first byte: "/" starts the origin form; `step` reads any other.
            guard index < end, bytes[index] == UInt8(ascii: "/") else { return 0 }
            schemeIndex = -1
        }
        guard schemeIndex < 0 else { return 0 }
        var scan = skipWords(in: bytes, from: index, to: end, atLeast: space + 1, asciiOnly: true)
        while scan < end, isTargetByte(bytes[scan]) { scan += 1 }
        if scan < end, bytes[scan] == space {
            scan += 1
            beginVersion()
        }
        headBytes += scan - index
        return scan - index
    }

    /// "HTTP/1.1" or "HTTP/1.0" and the CRLF or LF that ends the request line.
    private mutating func takeVersion(_ bytes: UnsafeRawBufferPointer, from index: Int) -> Int {
        // The version and the CR or LF after it are checked against the limit.
        guard versionIndex == 0, index + 9 <= headWindowEnd(from: index, bytes.count) else { return 0 }
        // '0' and '1' differ in their lowest bit only.
        guard bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self) & ~(1 << 56) == asciiWord("HTTP/1.0") else { return 0 }
        let lineEnd = bytes[index + 8]
        let length: Int
        if lineEnd == lf {
            length = 9
            lineStart = position + length
        } else if lineEnd == cr, index + 10 <= bytes.count, bytes[index + 9] == lf {
            length = 10
        } else {
            return 0
        }
        major = 1
        minor = bytes[index + 7] &- zero
        versionIndex = 8
        headBytes += length
        state = .fieldStart
        return length
    }

    /// A field name and its colon: classified from the bytes, with no `FieldName` built.
    private mutating func takeFieldName(_ bytes: UnsafeRawBufferPointer, from index: Int) -> Int {
        let end = headWindowEnd(from: index, bytes.count)
        var scan = index
        while scan < end, isTokenCharacter(bytes[scan]) { scan += 1 }
        guard scan > index, scan < end, bytes[scan] == colon else { return 0 }
        lineStart = position
        headBytes += scan + 1 - index
        startValue(Field(named: bytes, from: index, count: scan - index))
        return scan + 1 - index
    }

    /// The empty line (CRLF) that ends the head.
    private mutating func takeHeadEnd(_ bytes: UnsafeRawBufferPointer, from index: Int, _ events: inout FramingEvents) -> Int {
        // Only the CR is counted against the limit.
        guard index + 2 <= bytes.count, bytes[index + 1] == lf, headBytes < limits.maxHeadBytes else { return 0 }
        lineStart = position
        headBytes += 1
        headComplete(end: position + 2, &events)
        return 2
    }

    /// Value bytes that need no more than counting (any value but Transfer-Encoding's, and the
    /// start of a Content-Length value), then the CRLF that ends the field when it is there.
    private mutating func takeFieldValue(_ bytes: UnsafeRawBufferPointer, from index: Int, _ events: inout FramingEvents) -> Int {
        let end = headWindowEnd(from: index, bytes.count)
        var scan = index
        switch field {
        case .other, .host:
            scan = skipWords(in: bytes, from: index, to: end, atLeast: space)
            while scan < end, isPlainValueByte(bytes[scan]) { scan += 1 }
        case .contentLength where valueState == 0:
            scan = takeContentLengthStart(bytes, from: index, to: end)
        default:
            break
        }
        headBytes += scan - index
        // The CR is checked against the limit; the LF is counted after it (`crFollowedBy`).
        if scan < end, bytes[scan] == cr, scan + 1 < bytes.count, bytes[scan + 1] == lf {
            headBytes += 2
            endField(&events)
            scan += 2
        }
        return scan - index
    }

    /// Leading white space and the digits of a Content-Length value before `end`, while their number
    /// is no larger than `Int.max` (`step` refuses the digit that passes it); returns where they end.
    private mutating func takeContentLengthStart(_ bytes: UnsafeRawBufferPointer, from index: Int, to end: Int) -> Int {
        var scan = index
        while scan < end, bytes[scan] == space || bytes[scan] == tab { scan += 1 }
        let digitsStart = scan
        var value = contentLength
        while scan < end, value.append(bytes[scan]), !value.exceeds(maxLength) {
            contentLength = value
            scan += 1
        }
        if scan > digitsStart { valueState = 1 }
        return scan
    }

    // MARK: - The byte-level state machine

    private enum State: UInt8 {
        case requestStart, method, target, version, requestLineCR
        case fieldStart, fieldName, fieldValue, fieldValueCR, headEndCR
        case body
        case chunkSizeStart, chunkSize, chunkExtension, chunkLineCR, chunkData, chunkDataEnd, chunkDataCR
        case trailerStart, trailerName, trailerValue, trailerValueCR, trailerEndCR
        case refused, discarding
    }

    private enum Field: UInt8 {
        case other, contentLength, transferEncoding, host

        /// The field `name` names.
        init(named name: FieldName) {
            self =
                if name.equals(contentLengthName) { .contentLength } else if name.equals(transferEncodingName) {
                    .transferEncoding
                } else if name.equals(hostName) { .host } else { .other }
        }

        /// The field the `count` tchars from `start` in `bytes` name (in any case): only names as
        /// long as a special one are compared.
        init(named bytes: UnsafeRawBufferPointer, from start: Int, count: Int) {
            self =
                switch count {
                case 4: tcharsEqualIgnoringCase(bytes, from: start, "host") ? .host : .other
                case 14: tcharsEqualIgnoringCase(bytes, from: start, "content-length") ? .contentLength : .other
                case 17: tcharsEqualIgnoringCase(bytes, from: start, "transfer-encoding") ? .transferEncoding : .other
                default: .other
                }
        }
    }

    /// Consumes one byte at `position` (not yet advanced).
    private mutating func step(_ byte: UInt8, _ events: inout FramingEvents) {
        switch state {
        case .requestStart:
            if byte == cr || byte == lf {
                // RFC 9112 §2.2: empty lines before a request line are ignored (reported as
                // removals); they still count against the head limit.
                emptyLineBytes += 1
                if emptyLineBytes > limits.maxHeadBytes {
                    return refuse(400, "Too many empty lines before the request line.", at: position, &events)
                }
                if let last = events.removals.last, last.upperBound == position {
                    events.removals[events.removals.count - 1] = last.lowerBound..<position + 1
                } else {
                    events.removals.append(position..<position + 1)
                }
                return
            }
            guard isTokenCharacter(byte) else {
                return refuse(
                    400, "The bytes received cannot start an HTTP/1.1 request line (is this TLS or another protocol?).", at: position,
                    &events)
            }
            beginRequest()
            methodCode = UInt64(byte)
            methodLength = 1
            state = .method
        case .method:
            guard countHeadByte(&events) else { return }
            if byte == space {
                beginTarget(afterSpaceAt: position)
            } else if isTokenCharacter(byte), methodLength < 32 {
                if methodLength < 8 { methodCode |= UInt64(byte) << (8 * UInt64(methodLength)) }
                methodLength += 1
            } else {
                refuse(400, "The request line is malformed: a method is a token followed by one space.", at: lineStart, &events)
            }
        case .target:
            guard countHeadByte(&events) else { return }
            if byte == space {
                // A target that ends inside "http://" or right after it names no resource.
                guard schemeIndex < 0 || (schemeIndex == 8 && position > authorityStart) else { return refuseTarget(&events) }
                beginVersion()
            } else if byte < space || byte == 0x7F {
                refuse(
                    400, "The request line is malformed: the target is followed by one space and the HTTP version.", at: lineStart, &events)
            } else if byte > 0x7F {
                refuse(
                    400, "The request target contains a byte that is not ASCII; percent-encode it (RFC 3986 §2.1).", at: lineStart, &events)
            } else if schemeIndex >= 0 {
                absoluteFormByte(byte, &events)
            }
        case .version:
            guard countHeadByte(&events) else { return }
            if byte == cr || byte == lf {
                guard versionIndex == 8 else {
                    return refuse(400, "The request line is malformed: it must end with HTTP/1.1 or HTTP/1.0.", at: lineStart, &events)
                }
                guard major == 1, minor <= 1 else {
                    return refuse(505, "HTTP/\(major).\(minor) is not supported; send HTTP/1.1 (or HTTP/1.0).", at: lineStart, &events)
                }
                state = byte == cr ? .requestLineCR : .fieldStart
                if byte == lf { lineStart = position + 1 }
                return
            }
            // "HTTP/" DIGIT "." DIGIT
            let matches: Bool
            switch versionIndex {
            case 0...4: matches = byte == httpPrefix(versionIndex)
            case 5: matches = isDigit(byte); major = byte &- zero
            case 6: matches = byte == UInt8(ascii: ".")
            case 7: matches = isDigit(byte); minor = byte &- zero
            default: matches = false
            }
            guard matches else {
                return refuse(400, "The request line is malformed: the HTTP version must be HTTP/1.1 or HTTP/1.0.", at: lineStart, &events)
            }
            versionIndex += 1
        case .requestLineCR, .fieldValueCR, .headEndCR, .chunkLineCR, .trailerValueCR, .trailerEndCR:
            crFollowedBy(byte, &events)
        case .fieldStart:
            lineStart = position
            guard countHeadByte(&events) else { return }
            if byte == cr {
                state = .headEndCR
            } else if byte == lf {
                headComplete(end: position + 1, &events)
            } else if byte == space || byte == tab {
                refuse(
                    400, "A header field line starts with white space (obsolete line folding); send each field on one line.", at: lineStart,
                    &events)
            } else if isTokenCharacter(byte) {
                name = FieldName()
                name.append(byte)
                state = .fieldName
            } else {
                refuse(400, "A header field name is not a token (RFC 9110 §5.1).", at: lineStart, &events)
            }
        case .fieldName:
            guard countHeadByte(&events) else { return }
            if byte == colon {
                startValue(Field(named: name))
            } else if isTokenCharacter(byte) {
                name.append(byte)
            } else if byte == space || byte == tab {
                refuse(400, "White space between a header field name and its colon is not allowed (RFC 9112 §5.1).", at: lineStart, &events)
            } else if byte == cr || byte == lf {
                refuse(400, "A header field line has no colon.", at: lineStart, &events)
            } else {
                refuse(400, "A header field name is not a token (RFC 9110 §5.1).", at: lineStart, &events)
            }
        case .fieldValue:
            guard countHeadByte(&events) else { return }
            if byte == cr {
                state = .fieldValueCR
            } else if byte == lf {
                endField(&events)
            } else if isControl(byte) {
                refuse(400, "A header field value contains a control character.", at: lineStart, &events)
            } else {
                valueByte(byte, &events)
            }
        case .chunkSizeStart:
            lineStart = position
            chunkLineBytes = 1
            chunkSize = WireNumber(radix: .hexadecimal)
            guard chunkSize.append(byte) else {
                return refuse(400, "A chunk size is not a hexadecimal number (RFC 9112 §7.1).", at: lineStart, &events)
            }
            extensionStart = -1
            extensionHasSemicolon = false
            state = .chunkSize
        case .chunkSize, .chunkExtension:
            chunkLineBytes += 1
            if chunkLineBytes > limits.maxChunkLineBytes {
                return refuse(400, "A chunk-size line is longer than \(limits.maxChunkLineBytes) bytes.", at: lineStart, &events)
            }
            if byte == cr || byte == lf {
                if state == .chunkExtension, !extensionHasSemicolon {
                    return refuse(400, "A chunk size is followed by something other than a chunk extension.", at: lineStart, &events)
                }
                if state == .chunkExtension, !extensionPart.mayEndLine {
                    return refuse(
                        400, "A chunk extension is cut short: a name, a value or a closing quote is missing (RFC 9112 §7.1.1).",
                        at: lineStart,
                        &events)
                }
                if extensionStart >= 0 { events.removals.append(extensionStart..<position) }
                if byte == cr { state = .chunkLineCR } else { chunkLineEnd(&events) }
            } else if state == .chunkSize, chunkSize.append(byte) {
                // Leading zeros are digits like any other: the line's length bounds them.
                if chunkSize.exceeds(UInt64(limits.maxBodyBytes)) { return refuseBodyOverLimit(&events) }
            } else if state == .chunkSize, byte == semicolon || byte == space || byte == tab {
                state = .chunkExtension
                extensionStart = position
                extensionHasSemicolon = byte == semicolon
                extensionPart = byte == semicolon ? .afterSemicolon : .beforeSemicolon
            } else if state == .chunkExtension {
                if isControl(byte) {
                    refuse(400, "A chunk extension contains a control character.", at: lineStart, &events)
                } else if !extensionHasSemicolon, byte != space, byte != tab, byte != semicolon {
                    refuse(400, "A chunk size is followed by something other than a chunk extension.", at: lineStart, &events)
                } else if let next = extensionPart.next(byte) {
                    extensionPart = next
                    if byte == semicolon { extensionHasSemicolon = true }
                } else {
                    refuse(
                        400, "A chunk extension is not `;name` or `;name=value` with a token or quoted-string value (RFC 9112 §7.1.1).",
                        at: lineStart, &events)
                }
            } else {
                refuse(400, "A chunk size is not a hexadecimal number (RFC 9112 §7.1).", at: lineStart, &events)
            }
        case .chunkDataEnd:
            if byte == cr {
                state = .chunkDataCR
            } else if byte == lf {
                state = .chunkSizeStart
            } else {
                refuse(400, "Chunk data is not followed by CRLF.", at: position, &events)
            }
        case .chunkDataCR:
            if byte == lf { state = .chunkSizeStart } else { refuse(400, "Chunk data is not followed by CRLF.", at: position - 1, &events) }
        case .trailerStart:
            lineStart = position
            guard countHeadByte(&events) else { return }
            if byte == cr {
                state = .trailerEndCR
            } else if byte == lf {
                messageComplete(&events)
            } else if isTokenCharacter(byte) {
                state = .trailerName
            } else {
                refuse(400, "A trailer field name is not a token, or a trailer line starts with white space.", at: lineStart, &events)
            }
        case .trailerName:
            guard countHeadByte(&events) else { return }
            if byte == colon {
                state = .trailerValue
            } else if !isTokenCharacter(byte) {
                refuse(400, "A trailer field name is not a token or is not followed directly by a colon.", at: lineStart, &events)
            }
        case .trailerValue:
            guard countHeadByte(&events) else { return }
            if byte == cr {
                state = .trailerValueCR
            } else if byte == lf {
                state = .trailerStart
            } else if isControl(byte) {
                refuse(400, "A trailer field value contains a control character.", at: lineStart, &events)
            }
        case .body, .chunkData, .refused, .discarding:
            break
        }
    }

    /// A CR must be followed by LF (RFC 9112 §2.2).
    private mutating func crFollowedBy(_ byte: UInt8, _ events: inout FramingEvents) {
        guard byte == lf else {
            return refuse(400, "A carriage return is not followed by a line feed.", at: lineStart, &events)
        }
        switch state {
        case .requestLineCR:
            headBytes += 1
            state = .fieldStart
        case .fieldValueCR:
            headBytes += 1
            endField(&events)
        case .headEndCR:
            headComplete(end: position + 1, &events)
        case .chunkLineCR:
            chunkLineEnd(&events)
        case .trailerValueCR:
            state = .trailerStart
        case .trailerEndCR:
            messageComplete(&events)
        default:
            break
        }
    }

    /// The target's forms (RFC 9112 §3.2): the origin form (`/todos`), the asterisk form (`*`), the
    /// authority form of a CONNECT, or the absolute form of an `http` or `https` URI with a host
    /// (`http://host/todos`), whose scheme and authority are reported as a removal (the request is
    /// routed by its origin form, `/todos`; `HTTPRequest` takes the authority as its host). Any
    /// other target is refused: another scheme is not this server's to answer.
    private mutating func absoluteFormByte(_ byte: UInt8, _ events: inout FramingEvents) {
        let lower = byte | 0x20
        let matches: Bool
        switch schemeIndex {
        case 0:
            if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "*") || methodCode == methodCONNECT {
                schemeIndex = -1
                return
            }
            matches = lower == UInt8(ascii: "h")
        case 1, 2: matches = lower == UInt8(ascii: "t")
        case 3: matches = lower == UInt8(ascii: "p")
        case 4:
            matches = lower == UInt8(ascii: "s") || byte == colon
            if byte == colon { schemeIndex = 5 }
        case 5: matches = byte == colon
        case 6: matches = byte == UInt8(ascii: "/")
        case 7:
            matches = byte == UInt8(ascii: "/")
            authorityStart = position + 1
        default:
            if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") {
                guard position > authorityStart else { return refuseTarget(&events) }
                if byte == UInt8(ascii: "/") { events.removals.append(targetStart..<position) }
                schemeIndex = -1
            }
            return
        }
        guard matches else { return refuseTarget(&events) }
        schemeIndex += 1
    }

    private mutating func refuseTarget(_ events: inout FramingEvents) {
        refuse(
            400, "The request target must be a path (/todos) or an http or https URI with a host (RFC 9112 §3.2).", at: lineStart,
            &events)
    }

    /// Counts one more byte of the head; refuses once it passes the limit.
    private mutating func countHeadByte(_ events: inout FramingEvents) -> Bool {
        headBytes += 1
        guard headBytes > limits.maxHeadBytes else { return true }
        refuse(
            431, "The request line and header fields (or the trailer fields) are longer than \(limits.maxHeadBytes) bytes.", at: lineStart,
            &events)
        return false
    }

    /// The first byte of a request line, a tchar at `position`.
    private mutating func beginRequest() {
        requestStart = position
        headBytes = 1
        emptyLineBytes = 0
        lineStart = position
        contentLength = WireNumber(radix: .decimal)
        contentLengths = 0
        hosts = 0
        transferCodings = 0
        transferEncodingFields = 0
        lastCodingIsChunked = false
        major = 0
        minor = 0
    }

    /// The space after the method, at `offset`: the target starts after it.
    private mutating func beginTarget(afterSpaceAt offset: Int) {
        state = .target
        targetStart = offset + 1
        schemeIndex = 0
    }

    /// The space after the target: the version follows.
    private mutating func beginVersion() {
        state = .version
        versionIndex = 0
    }

    /// The colon after a field name: the value of `field` follows.
    private mutating func startValue(_ field: Field) {
        self.field = field
        switch field {
        case .contentLength:
            contentLengths += 1
            contentLength = WireNumber(radix: .decimal)
        case .transferEncoding:
            transferEncodingFields += 1
            coding = FieldName()
            codingHasParameters = false
            codingSpaceSeen = false
        case .host:
            hosts += 1
        case .other:
            break
        }
        valueState = 0
        state = .fieldValue
    }

    /// One byte of a field value (not CR, LF or a control character).
    private mutating func valueByte(_ byte: UInt8, _ events: inout FramingEvents) {
        switch field {
        case .other, .host:
            break
        case .contentLength:
            // valueState: 0 leading white space, 1 digits, 2 trailing white space.
            if valueState < 2, contentLength.append(byte) {
                guard !contentLength.exceeds(maxLength) else {
                    return refuse(400, "Content-Length is too large a number.", at: lineStart, &events)
                }
                valueState = 1
            } else if byte == space || byte == tab {
                if valueState == 1 { valueState = 2 }
            } else {
                refuse(400, "Content-Length must be one decimal number (1*DIGIT).", at: lineStart, &events)
            }
        case .transferEncoding:
            if byte == comma {
                endCoding()
            } else if byte == semicolon {
                codingHasParameters = true
            } else if byte == space || byte == tab {
                codingSpaceSeen = coding.length > 0
            } else if !codingHasParameters {
                // White space inside a coding ("chun ked") makes it another coding.
                if codingSpaceSeen { codingHasParameters = true } else { coding.append(byte) }
            }
        }
    }

    private mutating func endCoding() {
        if coding.length > 0 || codingHasParameters {
            transferCodings += 1
            lastCodingIsChunked = !codingHasParameters && coding.equals(chunkedName)
        }
        coding = FieldName()
        codingHasParameters = false
        codingSpaceSeen = false
    }

    private mutating func endField(_ events: inout FramingEvents) {
        if field == .contentLength, valueState == 0 {
            return refuse(400, "Content-Length is empty; it must be one decimal number (1*DIGIT).", at: lineStart, &events)
        }
        if field == .transferEncoding { endCoding() }
        state = .fieldStart
    }

    /// The empty line after the header fields, which ends before stream offset `end`: checks the
    /// framing, then expects the body.
    private mutating func headComplete(end: Int, _ events: inout FramingEvents) {
        if major == 1, minor == 1, hosts == 0 {
            return refuse(400, "An HTTP/1.1 request must have a Host header (RFC 9112 §3.2).", at: lineStart, &events)
        }
        if contentLengths > 1 {
            return refuse(400, "The request has \(contentLengths) Content-Length headers; send exactly one.", at: lineStart, &events)
        }
        let chunked = transferEncodingFields > 0
        if chunked {
            if contentLengths > 0 {
                return refuse(400, "The request has both Content-Length and Transfer-Encoding; send one.", at: lineStart, &events)
            }
            if minor == 0 {
                return refuse(400, "Transfer-Encoding is not allowed in an HTTP/1.0 request.", at: lineStart, &events)
            }
            if !lastCodingIsChunked {
                return refuse(400, "The final transfer coding must be chunked (RFC 9112 §6.3).", at: lineStart, &events)
            }
            if transferCodings > 1 {
                return refuse(501, "Transfer codings other than chunked are not supported.", at: lineStart, &events)
            }
        }
        // At most `maxLength` (checked digit by digit): a body of up to `Int.max` bytes is a number.
        let length = contentLength.intValue(atMost: Int.max) ?? 0
        if length > limits.maxBodyBytes { return refuseBodyOverLimit(&events) }
        events.headsCompleted += 1
        let hasBody = chunked || length > 0
        guard hasBody else {
            state = .requestStart
            events.messagesCompleted += 1
            return
        }
        bodyBytes = 0
        if chunked {
            state = .chunkSizeStart
        } else {
            remaining = length
            state = .body
        }
    }

    private mutating func chunkLineEnd(_ events: inout FramingEvents) {
        // bodyBytes ≤ maxBodyBytes, so the room left is never negative; a size past it (or past
        // UInt64) is no value at all.
        guard let size = chunkSize.intValue(atMost: limits.maxBodyBytes - bodyBytes) else {
            return refuseBodyOverLimit(&events)
        }
        bodyBytes += size
        if size == 0 {
            headBytes = 0
            state = .trailerStart
        } else {
            remaining = size
            state = .chunkData
        }
    }

    private mutating func refuseBodyOverLimit(_ events: inout FramingEvents) {
        refuse(413, "The request body is larger than the limit of \(limits.maxBodyBytes) bytes.", at: lineStart, &events)
    }

    private mutating func messageComplete(_ events: inout FramingEvents) {
        events.messagesCompleted += 1
        state = .requestStart
    }

    private mutating func refuse(_ status: Int, _ detail: String, at offset: Int, _ events: inout FramingEvents) {
        state = .refused
        events.refusal = Refusal(status: status, detail: detail, cutOffset: offset)
    }
}

/// The grammar of chunk extensions (RFC 9112 §7.1.1), a byte at a time, CR and LF aside:
/// `*( BWS ";" BWS name [ BWS "=" BWS ( token / quoted-string ) ] )`. Read strictly, so that no
/// reading of the line by another server (a proxy in front, say) can end it elsewhere: a quoted
/// string that is not closed before the line ends is refused, not ended at the line's end.
enum ExtensionPart: UInt8 {
    case beforeSemicolon, afterSemicolon, name, afterName, afterEquals, token, quoted, quotedPair

    /// Whether the line may end here (after a name or a value, or white space after a value).
    var mayEndLine: Bool {
        switch self {
        case .beforeSemicolon, .name, .afterName, .token: true
        case .afterSemicolon, .afterEquals, .quoted, .quotedPair: false
        }
    }

    /// Where `byte` (not CR, LF or another control character but HTAB) leads; nil: not allowed here.
    func next(_ byte: UInt8) -> ExtensionPart? {
        let space = byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
        let semicolon = byte == UInt8(ascii: ";")
        switch self {
        case .beforeSemicolon: return space ? self : semicolon ? .afterSemicolon : nil
        case .afterSemicolon: return space ? self : isTokenCharacter(byte) ? .name : nil
        case .name, .afterName:
            if isTokenCharacter(byte) { return self == .name ? .name : nil }
            return space ? .afterName : semicolon ? .afterSemicolon : byte == UInt8(ascii: "=") ? .afterEquals : nil
        case .afterEquals:
            return space ? self : byte == UInt8(ascii: "\"") ? .quoted : isTokenCharacter(byte) ? .token : nil
        case .token: return isTokenCharacter(byte) ? self : space ? .beforeSemicolon : semicolon ? .afterSemicolon : nil
        case .quoted:
            // qdtext: HTAB, SP and visible bytes but DQUOTE and backslash, obs-text.
            return byte == UInt8(ascii: "\"") ? .beforeSemicolon : byte == UInt8(ascii: "\\") ? .quotedPair : self
        case .quotedPair: return .quoted
        }
    }
}

/// What one `HTTPFraming.consume` call found.
struct FramingEvents: Equatable {
    /// Request heads completed and accepted.
    var headsCompleted = 0
    /// Requests received completely (head and body).
    var messagesCompleted = 0
    /// Stream ranges that carry no request content: empty lines before a request line, chunk
    /// extensions, an absolute-form target's scheme and authority.
    var removals: [Range<Int>] = []
    /// The stream is refused.
    var refusal: HTTPFraming.Refusal?
    /// Bytes from this stream offset on are never parsed: drop them.
    var discardFrom: Int?
    /// Body bytes, as stream ranges (only with `HTTPFraming.recordsBodySpans`).
    var bodySpans: [Range<Int>] = []
}

extension FramingEvents {
    /// Adds what a later `consume` call on the same stream found: counts summed, removals appended
    /// (one that starts where the last ends extends it: the same bytes removed either way), the
    /// first refusal and discard offset kept. Several calls' events then read as one call's would
    /// (the tests and the framing fuzzer compare streams fed in different pieces this way).
    mutating func append(_ later: FramingEvents) {
        headsCompleted += later.headsCompleted
        messagesCompleted += later.messagesCompleted
        for range in later.removals {
            if let last = removals.last, last.upperBound == range.lowerBound {
                removals[removals.count - 1] = last.lowerBound..<range.upperBound
            } else {
                removals.append(range)
            }
        }
        for range in later.bodySpans {
            if let last = bodySpans.last, last.upperBound == range.lowerBound {
                bodySpans[bodySpans.count - 1] = last.lowerBound..<range.upperBound
            } else {
                bodySpans.append(range)
            }
        }
        if refusal == nil { refusal = later.refusal }
        if discardFrom == nil { discardFrom = later.discardFrom }
    }
}

/// A field name or coding, lowercased, packed into three words: exact comparison without allocating.
struct FieldName: Equatable {
    private var words: (UInt64, UInt64, UInt64) = (0, 0, 0)
    private(set) var length = 0

    mutating func append(_ byte: UInt8) {
        let lower = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
        let shift = UInt64(8 * (length % 8))
        switch length / 8 {
        case 0: words.0 |= UInt64(lower) << shift
        case 1: words.1 |= UInt64(lower) << shift
        case 2: words.2 |= UInt64(lower) << shift
        default: break
        }
        length += 1
    }

    func equals(_ other: FieldName) -> Bool {
        length == other.length && words == other.words
    }

    static func == (lhs: FieldName, rhs: FieldName) -> Bool { lhs.equals(rhs) }

    init() {}

    init(_ text: StaticString) {
        text.withUTF8Buffer { for byte in $0 { append(byte) } }
    }
}

private let contentLengthName = FieldName("content-length")
private let transferEncodingName = FieldName("transfer-encoding")
private let hostName = FieldName("host")
private let chunkedName = FieldName("chunked")

private func methodCode(_ text: StaticString) -> UInt64 {
    text.withUTF8Buffer { bytes in
        bytes.prefix(8).enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
    }
}

private let methodGET = methodCode("GET")
private let methodPUT = methodCode("PUT")
private let methodPOST = methodCode("POST")
private let methodPATCH = methodCode("PATCH")
private let methodDELETE = methodCode("DELETE")
private let methodOPTIONS = methodCode("OPTIONS")
private let methodCONNECT = methodCode("CONNECT")

private let cr = UInt8(ascii: "\r")
private let lf = UInt8(ascii: "\n")
private let space = UInt8(ascii: " ")
private let tab = UInt8(ascii: "\t")
private let colon = UInt8(ascii: ":")
private let semicolon = UInt8(ascii: ";")
private let comma = UInt8(ascii: ",")
private let zero = UInt8(ascii: "0")
/// The largest Content-Length read as a number (larger ones are refused, as too large a number).
private let maxLength = UInt64(Int.max)
/// The bytes of "HTTP/".
@inline(__always) private func httpPrefix(_ index: Int) -> UInt8 {
    switch index {
    case 0: 0x48
    case 1, 2: 0x54
    case 3: 0x50
    default: 0x2F
    }
}

/// A byte of a target in origin form (or of the rest of an absolute-form one): visible ASCII.
@inline(__always) private func isTargetByte(_ byte: UInt8) -> Bool { byte > space && byte < 0x7F }

/// A field value byte that is not CR, LF or a control character: visible ASCII, SP, HTAB, obs-text.
@inline(__always) private func isPlainValueByte(_ byte: UInt8) -> Bool { byte >= space ? byte != 0x7F : byte == tab }

/// Skips whole words of eight bytes from `index` to at most `end` in which every byte is at least
/// `floor` (at most 0x80; bytes from 0x80 up count as above it, unless `asciiOnly` stops at them)
/// and none is DEL; returns where it stopped. For each byte lane (SWAR), subtracting `floor` borrows, and sets the lane's high bit while
/// the byte's own is clear, only if the byte is below `floor`; the lowest such lane gets no borrow
/// from below, so a word passes exactly when none of its bytes is below `floor` (DEL likewise, as a
/// zero byte of `word ^ DEL`).
@inline(__always) private func skipWords(
    in bytes: UnsafeRawBufferPointer, from index: Int, to end: Int, atLeast floor: UInt8, asciiOnly: Bool = false
) -> Int {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highBits: UInt64 = 0x8080_8080_8080_8080
    var scan = index
    while end - scan >= 8 {
        let word = bytes.loadUnaligned(fromByteOffset: scan, as: UInt64.self)
        let below = (word &- ones &* UInt64(floor)) & ~word
        let delXor = word ^ (ones &* 0x7F)
        let del = (delXor &- ones) & ~delXor
        guard (below | del | (asciiOnly ? word : 0)) & highBits == 0 else { break }
        scan += 8
    }
    return scan
}

/// The first eight bytes of `text` as `loadUnaligned` reads them from a buffer.
@inline(__always) private func asciiWord(_ text: StaticString) -> UInt64 {
    UnsafeRawPointer(text.utf8Start).loadUnaligned(as: UInt64.self)
}

/// Whether the `name.utf8CodeUnitCount` tchars from `start` in `bytes` spell `name`, which is in
/// lowercase letters and "-", in any case. Setting bit 5 lowercases a letter, and turns no other
/// tchar into a lowercase letter or "-" (only CR would become "-"); eight bytes are compared at a
/// time, the last word overlapping the one before it.
@inline(__always) private func tcharsEqualIgnoringCase(_ bytes: UnsafeRawBufferPointer, from start: Int, _ name: StaticString) -> Bool {
    let length = name.utf8CodeUnitCount
    let text = UnsafeRawPointer(name.utf8Start)
    guard length >= 8 else {
        for index in 0..<length where bytes[start + index] | 0x20 != text.load(fromByteOffset: index, as: UInt8.self) {
            return false
        }
        return true
    }
    var offset = 0
    while true {
        let at = min(offset, length - 8)
        let word = bytes.loadUnaligned(fromByteOffset: start + at, as: UInt64.self) | 0x2020_2020_2020_2020
        guard word == text.loadUnaligned(fromByteOffset: at, as: UInt64.self) else { return false }
        if at == length - 8 { return true }
        offset += 8
    }
}

@inline(__always) private func isDigit(_ byte: UInt8) -> Bool { byte >= zero && byte <= UInt8(ascii: "9") }

/// CTL other than HTAB (RFC 5234), including DEL.
@inline(__always) private func isControl(_ byte: UInt8) -> Bool { (byte < 0x20 && byte != tab) || byte == 0x7F }

/// tchar (RFC 9110 §5.6.2): ALPHA, DIGIT and "!#$%&'*+-.^_`|~". Bit sets of bytes 0-63 and
/// 64-127 (literals, so no lazily initialised global is consulted per byte).
@inline(__always) private func isTokenCharacter(_ byte: UInt8) -> Bool {
    let bits: UInt64 = byte < 64 ? 0x03FF_6CFA_0000_0000 : byte < 128 ? 0x57FF_FFFF_C7FF_FFFE : 0
    return (bits >> UInt64(byte & 63)) & 1 == 1
}
