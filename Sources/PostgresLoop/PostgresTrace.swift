import EventLoops
import Glibc

/// TEMPORARY instrumentation (issue 22): with TODO_PG_TRACE=<folder> every connection records, per
/// request, when it was handed to the connection, how many requests the connection held then, when
/// its result arrived, when its completion started and returned; each pool records its loop's lag
/// (a 1 ms timer's lateness) and how long each socket callback ran. Dumped as CSV at close.
final class PostgresTrace {
    static let folder: String? = {
        guard let value = getenv("TODO_PG_TRACE") else { return nil }
        return String(cString: value)
    }()

    struct Record {
        var statement: String = ""
        var start: UInt64 = 0
        var sent: UInt64 = 0
        var ahead: Int = 0
        var ready: Bool = false
        var result: UInt64 = 0
        var answer: UInt64 = 0
        var done: UInt64 = 0
    }

    private var open: [UInt64: Record] = [:]
    private var finished: [Record] = []
    private var callbacks: [(UInt64, UInt64, Int)] = []
    let name: String

    init(name: String) {
        self.name = name
        finished.reserveCapacity(1 << 20)
        callbacks.reserveCapacity(1 << 18)
    }

    static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    func begin(_ id: UInt64, statement: String, ahead: Int, ready: Bool, waitedNs: UInt64 = 0) {
        let now = Self.now()
        open[id] = Record(statement: statement, start: now - waitedNs, sent: now, ahead: ahead, ready: ready)
    }

    func result(_ id: UInt64) {
        if open[id]?.result == 0 { open[id]?.result = Self.now() }
    }

    func answer(_ id: UInt64) { open[id]?.answer = Self.now() }

    func done(_ id: UInt64) {
        guard var record = open.removeValue(forKey: id) else { return }
        record.done = Self.now()
        if finished.count < (1 << 22) { finished.append(record) }
    }

    func callback(start: UInt64, end: UInt64, results: Int) {
        if callbacks.count < (1 << 22) { callbacks.append((start, end, results)) }
    }

    func dump() {
        guard let folder = Self.folder, !finished.isEmpty else { return }
        let path = "\(folder)/conn-\(getpid())-\(name).csv"
        guard let file = fopen(path, "w") else { return }
        fputs("statement,start,sent,ahead,ready,result,answer,done\n", file)
        for r in finished {
            fputs("\(r.statement),\(r.start),\(r.sent),\(r.ahead),\(r.ready ? 1 : 0),\(r.result),\(r.answer),\(r.done)\n", file)
        }
        fclose(file)
        if let cb = fopen("\(folder)/cb-\(getpid())-\(name).csv", "w") {
            fputs("start,end,results\n", cb)
            for c in callbacks { fputs("\(c.0),\(c.1),\(c.2)\n", cb) }
            fclose(cb)
        }
        finished = []
    }
}

/// TEMPORARY: a loop's lag, a 1 ms one-shot timer's lateness, per pool.
final class LoopLagProbe {
    private var timer: LoopTimer?
    private var expected: UInt64 = 0
    private var lags: [(UInt64, UInt64)] = []
    let name: String

    init(loop: LoopHandle, name: String) {
        self.name = name
        lags.reserveCapacity(1 << 20)
        timer = LoopTimer(loop: loop) { [unowned self] in fire() }
        arm()
    }

    private func arm() {
        expected = PostgresTrace.now() + 1_000_000
        timer?.schedule(after: .milliseconds(1))
    }

    private func fire() {
        let now = PostgresTrace.now()
        if lags.count < (1 << 22) { lags.append((now, now &- expected)) }
        arm()
    }

    func stop() {
        timer?.cancel()
        timer = nil
        guard let folder = PostgresTrace.folder, !lags.isEmpty else { return }
        guard let file = fopen("\(folder)/lag-\(getpid())-\(name).csv", "w") else { return }
        fputs("at,lag\n", file)
        for l in lags { fputs("\(l.0),\(Int64(bitPattern: l.1))\n", file) }
        fclose(file)
        lags = []
    }
}
