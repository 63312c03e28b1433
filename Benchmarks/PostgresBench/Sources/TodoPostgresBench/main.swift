import EventLoops
import Glibc
import PostgresLoop
import Synchronization

// Usage: TodoPostgresBench CONNECTION-STRING [SECONDS-PER-SAMPLE] [ROUNDS]
// Reads one to-do row by primary key (prepared, text results) over a table of 10,000, keeping 1 and
// then 32 requests in flight on one connection driven by one LoopThread; prints each sample and
// the median reads/s per depth.
let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    print("usage: TodoPostgresBench CONNECTION-STRING [SECONDS-PER-SAMPLE] [ROUNDS]")
    exit(2)
}
let seconds = arguments.count > 2 ? Double(arguments[2]) ?? 3 : 3
let rounds = arguments.count > 3 ? Int(arguments[3]) ?? 5 : 5

let loopThread = try LoopThread()
let loop = loopThread.loop
let configuration = try PostgresConfiguration(connectionString: arguments[1]).validated()
let connection = await LoopBound.make(on: loop) {
    let connection = PostgresConnection(loop: loop, configuration: configuration)
    connection.start()
    return connection
}

_ = try await connection.query("DROP TABLE IF EXISTS bench_todos")
_ = try await connection.query(
    """
    CREATE TABLE bench_todos (
        id uuid PRIMARY KEY, title text NOT NULL, title_key text COLLATE "C" NOT NULL,
        completed boolean NOT NULL, "order" bigint, due_date date,
        created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL, revision bigint NOT NULL)
    """)
_ = try await connection.query(
    """
    INSERT INTO bench_todos
    SELECT gen_random_uuid(), 'to-do ' || i, 'to-do ' || i, i % 3 = 0, i, DATE '2026-01-01' + i % 365, now(), now(), 1
    FROM generate_series(1, 10000) i
    """)
_ = try await connection.query("ANALYZE bench_todos")
let idRows = try await connection.query("SELECT id FROM bench_todos")
let ids = (0..<idRows.count).map { idRows[$0, 0]! }
let read = PostgresStatement(
    name: "read_one",
    sql: #"SELECT id, title, completed, "order", due_date, created_at, updated_at, revision FROM bench_todos WHERE id = $1"#)

/// Keeps `depth` reads in flight until told to stop; counts the answers.
final class Driver: @unchecked Sendable {
    let answered = Atomic<Int>(0)
    let failed = Atomic<Int>(0)
    let stop = Atomic<Bool>(false)
    let inFlight = Atomic<Int>(0)
    var next = 0

    func start(_ connection: PostgresConnection, depth: Int) {
        for _ in 0..<depth { issue(connection) }
    }

    private func issue(_ connection: PostgresConnection) {
        next = (next &+ 7919) % ids.count
        inFlight.add(1, ordering: .relaxed)
        connection.execute(.prepared(read), [ids[next]]) { result in
            self.inFlight.subtract(1, ordering: .relaxed)
            if case .success(let rows) = result, rows.count == 1 {
                self.answered.add(1, ordering: .relaxed)
            } else {
                self.failed.add(1, ordering: .relaxed)
            }
            if !self.stop.load(ordering: .relaxed) { self.issue(connection) }
        }
    }
}

func sample(depth: Int) -> Double {
    let driver = Driver()
    connection.withValue { driver.start($0, depth: depth) }
    var pause = timespec(tv_sec: 0, tv_nsec: 300_000_000)  // warm-up
    nanosleep(&pause, nil)
    let clock = ContinuousClock()
    let start = clock.now, before = driver.answered.load(ordering: .relaxed)
    pause = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
    nanosleep(&pause, nil)
    let count = driver.answered.load(ordering: .relaxed) - before
    let elapsed = clock.now - start
    driver.stop.store(true, ordering: .relaxed)
    while driver.inFlight.load(ordering: .relaxed) > 0 {
        var tick = timespec(tv_sec: 0, tv_nsec: 1_000_000)
        nanosleep(&tick, nil)
    }
    if driver.failed.load(ordering: .relaxed) > 0 { print("  failures: \(driver.failed.load(ordering: .relaxed))") }
    let (whole, fraction) = elapsed.components
    return Double(count) / (Double(whole) + Double(fraction) / 1e18)
}

for depth in [1, 32] {
    var rates: [Double] = []
    for round in 1...rounds {
        let rate = sample(depth: depth)
        rates.append(rate)
        print("depth \(depth) round \(round): \(Int(rate)) reads/s")
    }
    let median = rates.sorted()[rates.count / 2]
    print("depth \(depth): median \(Int(median)) reads/s over \(rounds) samples of \(seconds) s")
}

_ = try await connection.query("DROP TABLE bench_todos")
connection.withValue { $0.close() }
loopThread.shutdown()
