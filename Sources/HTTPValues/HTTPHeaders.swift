/// An ordered list of HTTP header fields with case-insensitive lookup by name.
public struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    /// The fields in the order they were received or added.
    public private(set) var fields: [HTTPField]

    public init() { fields = [] }

    /// Empty, with room for `capacity` fields (a response's headers, without regrowing).
    public init(capacity: Int) {
        fields = []
        fields.reserveCapacity(capacity)
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        fields = []
        fields.reserveCapacity(elements.count + 6)
        for (name, value) in elements { fields.append(HTTPField(name: name, value: value)) }
    }

    /// Makes room for `count` more fields (nothing when there is room already).
    public mutating func reserveCapacity(forAdding count: Int) {
        fields.reserveCapacity(fields.count + count)
    }

    /// The first value of the field named `name`, if any.
    public subscript(name: String) -> String? {
        // Through the array's buffer, lengths first: no copy of each field (two retains and
        // releases), and a name is compared in full only when its length matches.
        let length = name.utf8.count
        return fields.withUnsafeBufferPointer { fields in
            for index in fields.indices
            where fields[index].name.utf8.count == length && fields[index].name.equalsIgnoringASCIICase(name) {
                return fields[index].value
            }
            return nil
        }
    }

    /// Every value of the field named `name`, in order.
    public func values(for name: String) -> [String] {
        fields.compactMap { $0.name.equalsIgnoringASCIICase(name) ? $0.value : nil }
    }

    /// Appends a field, keeping any existing ones of the same name.
    public mutating func add(_ name: String, _ value: String) {
        fields.append(HTTPField(name: name, value: value))
    }

    /// Replaces every field named `name` with a single one.
    public mutating func set(_ name: String, _ value: String) {
        remove(name)
        fields.append(HTTPField(name: name, value: value))
    }

    /// Removes every field named `name`.
    public mutating func remove(_ name: String) {
        fields.removeAll { $0.name.equalsIgnoringASCIICase(name) }
    }

    /// Whether two header names are the same name (ASCII case folded, as RFC 9110 compares them).
    public static func namesMatch(_ a: String, _ b: String) -> Bool {
        a.equalsIgnoringASCIICase(b)
    }

    public func makeIterator() -> IndexingIterator<[HTTPField]> {
        fields.makeIterator()
    }

    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.count == rhs.fields.count
            && zip(lhs.fields, rhs.fields).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }
}

/// One header field. A struct, not a `(name:value:)` tuple: an array of tuples is destroyed
/// through the runtime's generic tuple witness, element by element (callgrind: ~1,400 instructions a
/// POST for the ten header arrays it frees), an array of structs through the struct's own.
public struct HTTPField: Sendable, Equatable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

extension String {
    /// Compares two strings byte by byte, folding ASCII letters only (header names are ASCII).
    /// For the transport's own header checks too, hence `package` and inlinable.
    @inlinable
    package func equalsIgnoringASCIICase(_ other: String) -> Bool {
        let a = utf8, b = other.utf8
        guard a.count == b.count else { return false }
        // On the contiguous bytes, a plain loop: `zip` over two UTF8Views goes through their generic iterators.
        let onBytes = a.withContiguousStorageIfAvailable { x in
            b.withContiguousStorageIfAvailable { y in
                for index in 0..<x.count where x[index] != y[index] {
                    let folded = x[index] | 0x20
                    guard folded == y[index] | 0x20, folded >= 0x61, folded <= 0x7A else { return false }
                }
                return true
            }
        }
        if let onBytes, let onBytes { return onBytes }
        for (x, y) in zip(a, b) where x != y {
            guard x | 0x20 == y | 0x20, (x | 0x20) >= 0x61, (x | 0x20) <= 0x7A else { return false }
        }
        return true
    }
}
