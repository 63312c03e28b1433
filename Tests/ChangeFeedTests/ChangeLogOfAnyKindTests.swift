import Synchronization
import Testing

@testable import ChangeFeed

/// The engine's change log with a change of its own (not the store's): what a log keeps of a change
/// is its record, and it gives back exactly what went in.
@Suite("Change log of any kind of change: records, the newest, replays, listeners")
struct ChangeLogOfAnyKindTests {
    /// A change that is a line of text, recorded as its UTF-8 bytes.
    struct Line: RecordedChange {
        var text: String

        func withRecord<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
            Array(text.utf8).withUnsafeBufferPointer(body)
        }

        init(_ text: String) { self.text = text }

        init(record: UnsafeBufferPointer<UInt8>) { text = String(decoding: record, as: UTF8.self) }
    }

    final class Counter: ChangeListener {
        let heard = Atomic<Int>(0)
        func changesAppended() { heard.add(1, ordering: .relaxed) }
    }

    private func log(capacity: Int = 3) -> ChangeLog<Line> {
        ChangeLog(tag: "t", capacity: capacity, start: ChangePosition(major: 1, minor: 0))
    }

    @Test func changesComeBackFromTheirRecordsInOrderAndOlderOnesGetAResync() {
        let log = log()
        let start = log.head
        for text in ["one", "two", "ü drei", "four"] { log.appendNext(Line(text)) }
        guard case .resync(let head) = log.replay(after: start) else {
            Issue.record("the first change left the window of 3")
            return
        }
        #expect(head.after == ChangePosition(major: 1, minor: 4))
        let afterFirst = ChangeCursor(after: ChangePosition(major: 1, minor: 1))
        guard case .changes(let changes, let end) = log.replay(after: afterFirst) else {
            Issue.record("retained")
            return
        }
        #expect(changes.map(\.kind.text) == ["two", "ü drei", "four"])
        #expect(changes.map(\.position.minor) == [2, 3, 4])
        #expect(end.after == ChangePosition(major: 1, minor: 4))
        #expect(log.replay(after: end) == .changes([], end: end))
    }

    @Test func aReaderOneChangeBehindGetsTheNewestAsItWasAppendedWithoutARecord() {
        let log = log()
        log.appendNext(Line("a"))
        let cursor = log.head
        log.appendNext(Line("b"))
        #expect(
            log.replay(after: cursor, limit: 64)
                == .changes([LoggedChange(position: ChangePosition(major: 1, minor: 2), kind: Line("b"))], end: log.head))
        #expect(log.examinedCount == 1)
    }

    @Test func tokensNameTheLogsPositionsAndAnotherLogsTokenIsUnknown() {
        let log = log()
        log.appendNext(Line("a"))
        #expect(log.headToken == "t.1.1")
        #expect(log.cursor(fromToken: "t.1.1") == log.head)
        #expect(log.cursor(fromToken: "u.1.1") == nil)
        #expect(log.cursor(fromToken: "t.01.1") == nil)
    }

    @Test func listenersHearEachAppendThatTookAChangeOnceAnnounced() {
        let log = log()
        let counter = Counter()
        log.listen(counter)
        let (_, announcement) = log.appendNextUnannounced(Line("a"))
        #expect(counter.heard.load(ordering: .relaxed) == 0)
        announcement.announce()
        log.append([LoggedChange(position: ChangePosition(major: 1, minor: 1), kind: Line("old"))])  // not after the head
        log.append([LoggedChange(position: ChangePosition(major: 1, minor: 9), kind: Line("z"))])
        #expect(counter.heard.load(ordering: .relaxed) == 2)
        #expect(log.listenerCount == 1)
    }
}
