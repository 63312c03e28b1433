import TodoData

extension TodoInputDecoder {
    /// The writable members a body gave (absent ones nil), whichever way it was read.
    struct WritableMembers: Equatable {
        var title: JSONValue?
        var completed: JSONValue?
        var order: JSONValue?
        var dueDate: JSONValue?
    }

    /// Reads a body of the usual shape straight into its members, without the generic parser's
    /// dictionary (`StrictJSONParser`) and the filtering of its keys after it.
    ///
    /// Only one flat object whose keys are writable fields, each at most once, and whose values
    /// are ASCII strings without escapes, `true`, `false` or `null`, is taken; for anything else
    /// (numbers, escapes, non-ASCII text, nesting, an unknown, read-only or repeated key, any
    /// error) it answers nil and the body goes the generic way, so every answer and every error
    /// message stays what the generic path gives.
    enum FlatScan {
        static func members(of body: [UInt8]) -> WritableMembers? {
            body.withUnsafeBufferPointer { scan($0) }
        }

        private static func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> WritableMembers? {
            let count = bytes.count
            var index = 0
            func skipWhitespace() {
                while index < count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 {
                    index += 1
                }
            }
            /// The end of the plain ASCII string whose opening quote is at `index` (the index of its
            /// closing quote), or nil if it has an escape, a control or a non-ASCII byte or is unterminated.
            func plainStringEnd() -> Int? {
                var end = index + 1
                while end < count {
                    let byte = bytes[end]
                    if byte == UInt8(ascii: "\"") { return end }
                    if byte == UInt8(ascii: "\\") || byte < 0x20 || byte >= 0x80 { return nil }
                    end += 1
                }
                return nil
            }
            func literal(_ text: StaticString) -> Bool {
                let length = text.utf8CodeUnitCount
                guard count - index >= length else { return false }
                for offset in 0..<length where bytes[index + offset] != text.utf8Start[offset] { return false }
                index += length
                return true
            }

            skipWhitespace()
            guard index < count, bytes[index] == UInt8(ascii: "{") else { return nil }
            index += 1
            skipWhitespace()
            var members = WritableMembers()
            if index < count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                skipWhitespace()
                return index == count ? members : nil
            }
            while true {
                guard index < count, bytes[index] == UInt8(ascii: "\""), let keyEnd = plainStringEnd() else { return nil }
                let field = Field(UnsafeBufferPointer(rebasing: bytes[(index + 1)..<keyEnd]))
                index = keyEnd + 1
                skipWhitespace()
                guard index < count, bytes[index] == UInt8(ascii: ":") else { return nil }
                index += 1
                skipWhitespace()
                guard index < count else { return nil }
                let value: JSONValue
                switch bytes[index] {
                case UInt8(ascii: "\""):
                    guard let end = plainStringEnd() else { return nil }
                    value = .string(String(decoding: UnsafeBufferPointer(rebasing: bytes[(index + 1)..<end]), as: UTF8.self))
                    index = end + 1
                case UInt8(ascii: "t"):
                    guard literal("true") else { return nil }
                    value = .bool(true)
                case UInt8(ascii: "f"):
                    guard literal("false") else { return nil }
                    value = .bool(false)
                case UInt8(ascii: "n"):
                    guard literal("null") else { return nil }
                    value = .null
                default:
                    return nil
                }
                switch field {
                case .title where members.title == nil: members.title = value
                case .completed where members.completed == nil: members.completed = value
                case .order where members.order == nil: members.order = value
                case .dueDate where members.dueDate == nil: members.dueDate = value
                default: return nil
                }
                skipWhitespace()
                guard index < count else { return nil }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    skipWhitespace()
                    continue
                }
                guard bytes[index] == UInt8(ascii: "}") else { return nil }
                index += 1
                skipWhitespace()
                return index == count ? members : nil
            }
        }

        /// A writable field's name, by its bytes.
        private enum Field {
            case title, completed, order, dueDate, other

            init(_ name: UnsafeBufferPointer<UInt8>) {
                func equals(_ text: StaticString) -> Bool {
                    guard name.count == text.utf8CodeUnitCount else { return false }
                    for offset in 0..<name.count where name[offset] != text.utf8Start[offset] { return false }
                    return true
                }
                if equals("title") {
                    self = .title
                } else if equals("completed") {
                    self = .completed
                } else if equals("order") {
                    self = .order
                } else if equals("dueDate") {
                    self = .dueDate
                } else {
                    self = .other
                }
            }
        }
    }

    /// `raw` itself when it is a title that trimming and the checks would leave as it is: 1 to
    /// `maxTitleScalars` bytes of printable ASCII (spaces inside only). Nil for every other title,
    /// which takes the general checks (Unicode trimming, scalar count, controls).
    static func plainASCIITitle(_ raw: String) -> String? {
        let plain = raw.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            guard (1...maxTitleScalars).contains(bytes.count), (0x21...0x7E).contains(bytes[0]),
                (0x21...0x7E).contains(bytes[bytes.count - 1])
            else { return false }
            for byte in bytes where byte < 0x20 || byte > 0x7E { return false }
            return true
        }
        return plain == true ? raw : nil
    }
}
