import Foundation

@testable import TodoServer

extension JSONValue {
    /// What `JSONSerialization` gave, as a value: booleans are the numbers of type `c`; numbers that
    /// are no `Int` are doubles, decimals read from their digits, as the strict parser reads them.
    init?(foundation any: Any) {
        switch any {
        case is NSNull: self = .null
        case let number as NSNumber:
            let type = String(cString: number.objCType)
            if type == "c" {
                self = .bool(number.boolValue)
            } else if number is NSDecimalNumber || (type != "d" && type != "f"), let integer = Int(number.stringValue) {
                self = .integer(integer)
            } else if number is NSDecimalNumber, let double = Double(number.stringValue) {
                // Foundation keeps some numbers as decimals, whose `doubleValue` is off by an ulp; their digits are exact.
                self = .number(double)
            } else {
                self = .number(number.doubleValue)
            }
        case let string as String: self = .string(string)
        case let array as [Any]:
            var elements: [JSONValue] = []
            for element in array {
                guard let value = JSONValue(foundation: element) else { return nil }
                elements.append(value)
            }
            self = .array(elements)
        case let object as [String: Any]:
            var members: [String: JSONValue] = [:]
            for (key, member) in object {
                guard let value = JSONValue(foundation: member) else { return nil }
                members[key] = value
            }
            self = .object(members)
        default: return nil
        }
    }

    /// Whether every number in the value is finite.
    var isFinite: Bool {
        switch self {
        case .number(let number): number.isFinite
        case .array(let elements): elements.allSatisfy(\.isFinite)
        case .object(let members): members.values.allSatisfy(\.isFinite)
        default: true
        }
    }
}
