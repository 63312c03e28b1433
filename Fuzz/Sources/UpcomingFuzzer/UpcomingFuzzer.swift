import Foundation
import TodoData
import TodoServer

/// Random instants, time zones, week starts and due dates → the upcoming use case, checked against
/// Foundation's Calendar: sections in order and disjoint, every item due in its section's days,
/// and every open to-do due from today to the end of next week listed.
let zones = TimeZone.knownTimeZoneIdentifiers.sorted()

struct FixedClock: TodoClock {
    let instant: Timestamp
    func now() -> Timestamp { instant }
}

/// Reads the input as: 8 bytes instant, 2 bytes zone, 1 byte week start, then 3 bytes per to-do
/// (due offset in days, completed flag, order).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 11 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let raw = bytes[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    // Any instant from 1970 to 2200. (Before 1970 the server's zoneinfo data, Debian's tzdata built
    // with backzone, and this oracle's ICU data differ for zones that are links in the main data.)
    let instant = Int64(raw % 7_258_118_400_000)
    let zone = TimeZone(identifier: zones[Int(UInt16(bytes[8]) << 8 | UInt16(bytes[9])) % zones.count])!
    let sunday = bytes[10] & 1 == 1

    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = zone
    calendar.firstWeekday = sunday ? 1 : 2
    let date = Date(timeIntervalSince1970: Double(instant) / 1000)
    let parts = calendar.dateComponents([.year, .month, .day], from: date)
    guard let today = CalendarDay(year: parts.year!, month: parts.month!, day: parts.day!) else { return 0 }
    // Days from today to the week's last day, from Foundation's weekday of today (a week interval
    // in seconds would be wrong where a zone repeated or skipped a day moving across the date line).
    let weekday = calendar.component(.weekday, from: date)
    let endOfWeek = 6 - (weekday - calendar.firstWeekday + 7) % 7

    var todos: [Todo] = []
    var index = 11
    while index + 2 < bytes.count, todos.count < 64 {
        let offset = Int(Int8(bitPattern: bytes[index])) % 24
        todos.append(
            Todo(
                id: "t\(todos.count)", title: "T", completed: bytes[index + 1] & 1 == 1,
                order: bytes[index + 2] == 0 ? nil : Int(bytes[index + 2]),
                dueDate: bytes[index + 1] & 2 == 2 ? nil : CalendarDay(daysSinceEpoch: today.daysSinceEpoch + offset),
                createdAt: Timestamp(millisecondsSinceEpoch: Int64(todos.count)),
                updatedAt: Timestamp(millisecondsSinceEpoch: 0)))
        index += 3
    }
    let interactor = UpcomingInteractor(
        store: InMemoryTodoStore(todos), clock: FixedClock(instant: Timestamp(millisecondsSinceEpoch: instant)),
        defaultTimeZone: IANATimeZone(identifier: zone.identifier)!)
    var answer: UpcomingData?
    interactor.upcoming(UpcomingRequest(weekStart: sunday ? .sunday : .monday)).whenReady { answer = try? $0.get() }
    guard let sections = answer?.sections else { preconditionFailure("no answer") }

    /// The days after today that each section covers, from Calendar's week.
    func days(_ relative: RelativeDate) -> ClosedRange<Int> {
        switch relative {
        case .today: 0...0
        case .tomorrow: 1...1
        case .laterThisWeek: 2...max(2, endOfWeek)
        case .nextWeek: (endOfWeek + 1)...(endOfWeek + 7)
        }
    }
    let order = sections.map { RelativeDate.allCases.firstIndex(of: $0.relativeDate)! }
    precondition(order == order.sorted() && Set(order).count == order.count, "sections out of order: \(order)")
    var listed = Set<String>()
    for section in sections {
        precondition(!section.items.isEmpty, "empty section \(section.relativeDate)")
        var previous = Int.min
        for item in section.items {
            precondition(listed.insert(item.id).inserted, "\(item.id) in two sections")
            precondition(!item.completed, "completed \(item.id) listed")
            let day = item.dueDate!.daysSinceEpoch - today.daysSinceEpoch
            precondition(
                days(section.relativeDate).contains(day) && (section.relativeDate != .laterThisWeek || endOfWeek >= 2),
                "\(item.id) due in \(day) days is not \(section.relativeDate) (week ends in \(endOfWeek), \(zone.identifier))")
            precondition(day >= previous, "items not in due order")
            previous = day
        }
    }
    for todo in todos where !todo.completed {
        guard let due = todo.dueDate else { continue }
        let day = due.daysSinceEpoch - today.daysSinceEpoch
        precondition((0...(endOfWeek + 7)).contains(day) == listed.contains(todo.id), "\(todo.id) due in \(day) days: listed wrongly")
    }
    return 0
}
