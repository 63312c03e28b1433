import Foundation
import Glibc
import LockTracing
import Synchronization

/// A throwaway PostgreSQL cluster for the tests: `initdb` into a temporary directory (as the
/// `postgres` user when the tests run as root, since `initdb` refuses root), listening only on a
/// unix socket in that directory, `fsync=off`. Stopped by its data directory (`stop()`, or at exit
/// for the shared one). Without the PostgreSQL binaries the tests that need one are skipped
/// (`PostgresTestCluster.isAvailable`); CI installs them (`scripts/install-deps.sh`).
package final class PostgresTestCluster: Sendable {
    package let directory: String
    package let port = 5432
    private let owner: String?

    /// The directory of `initdb` and `pg_ctl` (PostgreSQL 15 first), if installed.
    package static let binaries: String? = {
        for version in ["15", "16", "17", "14"] {
            let directory = "/usr/lib/postgresql/\(version)/bin"
            if access(directory + "/initdb", X_OK) == 0, access(directory + "/pg_ctl", X_OK) == 0 { return directory }
        }
        return nil
    }()

    package static var isAvailable: Bool {
        if binaries == nil { print("PostgreSQL binaries not found under /usr/lib/postgresql/*/bin: skipping the PostgreSQL tests") }
        return binaries != nil
    }

    /// One cluster for the whole test run, for tests that do not stop or freeze it; stopped at exit.
    package static let shared: PostgresTestCluster? = startShared()

    /// A second one for the live feed's tests: the feed delivers a change once every older
    /// transaction of the whole cluster has finished, and other tests hold transactions open on
    /// purpose (a row locked to stall a statement), which would hold the feed back meanwhile.
    package static let feeds: PostgresTestCluster? = startShared()

    /// A third for the owners' isolation contract, whose tests run in parallel and one of which
    /// waits for the feed: on a cluster of their own, nothing else holds their feed back.
    package static let owners: PostgresTestCluster? = startShared()

    private static func startShared() -> PostgresTestCluster? {
        guard isAvailable else { return nil }
        do {
            let cluster = try PostgresTestCluster()
            let first = sharedDirectories.withTracedLock { directories in
                directories.append(cluster.directory)
                return directories.count == 1
            }
            if first { atexit { PostgresTestCluster.stopShared() } }
            return cluster
        } catch {
            print("cannot start a shared PostgreSQL test cluster: \(error)")
            return nil
        }
    }

    private static let sharedDirectories = Mutex<[String]>([])

    private static func stopShared() {
        for directory in sharedDirectories.withTracedLock({ $0 }) {
            PostgresTestCluster.stop(directory: directory, owner: getuid() == 0 ? "postgres" : nil)
        }
    }

    package struct Failure: Error, CustomStringConvertible {
        package let description: String

        package init(description: String) { self.description = description }
    }

    /// initdb and start a new cluster.
    package init() throws {
        guard let binaries = Self.binaries else { throw Failure(description: "no PostgreSQL binaries") }
        var template = Array("/tmp/todo-pg.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw Failure(description: "mkdtemp failed") }
        directory = String(cString: made)
        owner = getuid() == 0 ? "postgres" : nil
        if owner != nil {
            let pw = getpwnam("postgres")
            guard let pw else { throw Failure(description: "no postgres user to run initdb as") }
            chown(directory, pw.pointee.pw_uid, pw.pointee.pw_gid)
        }
        try run(
            binaries + "/initdb", "-D", directory + "/data", "-U", "postgres", "-A", "trust", "-E", "UTF8",
            "--locale=C.UTF-8", "--no-sync")
        try start()
    }

    /// The libpq connection string for `database`.
    package func connectionString(database: String = "postgres") -> String {
        "host=\(directory) port=\(port) dbname=\(database) user=postgres"
    }

    package func start() throws {
        try run(
            Self.binaries! + "/pg_ctl", "-D", directory + "/data", "-l", directory + "/server.log", "-w", "-t", "60",
            "-o", "-p \(port) -k \(directory) -c listen_addresses='' -c fsync=off -c max_connections=200", "start")
    }

    /// `pg_ctl stop` with `mode` (`fast`, `immediate`).
    package func stopServer(mode: String) throws {
        try run(Self.binaries! + "/pg_ctl", "-D", directory + "/data", "-m", mode, "-w", "-t", "60", "stop")
    }

    /// Creates `name` with psql-free SQL through `createdb`.
    package func createDatabase(_ name: String) throws {
        try run(Self.binaries! + "/createdb", "-h", directory, "-p", String(port), "-U", "postgres", name)
    }

    /// Creates a database named `label` and a random number, for one test of its own; its name.
    package func freshDatabase(_ label: String) throws -> String {
        let name = "\(label)_\(UInt32.random(in: 0...UInt32.max))"
        try createDatabase(name)
        return name
    }

    /// Stops the server (if running) and removes the directory.
    package func stop() {
        Self.stop(directory: directory, owner: owner)
    }

    private static func stop(directory: String, owner: String?) {
        if let binaries {
            _ = try? execute(owner: owner, binaries + "/pg_ctl", "-D", directory + "/data", "-m", "immediate", "-w", "stop")
        }
        _ = try? execute(owner: nil, "/bin/rm", "-rf", directory)
    }

    private func run(_ arguments: String...) throws {
        let (status, output) = try Self.execute(owner: owner, arguments)
        guard status == 0 else { throw Failure(description: "\(arguments.joined(separator: " ")) failed (\(status)): \(output)") }
    }

    private static func execute(owner: String?, _ arguments: String...) throws -> (Int32, String) {
        try execute(owner: owner, arguments)
    }

    /// Runs a command (as `owner` through runuser when given) and waits for it; answers its exit
    /// status and its combined output. posix_spawn and waitpid directly (Foundation's Process hung
    /// here, never reaping a runuser that had exited); the output goes through a temporary file, not a
    /// pipe, since the server `pg_ctl start` leaves running would keep a pipe open.
    private static func execute(owner: String?, _ arguments: [String]) throws -> (Int32, String) {
        let command = owner.map { ["/usr/sbin/runuser", "-u", $0, "--"] + arguments } ?? arguments
        var template = Array("/tmp/todo-pg-output.XXXXXX".utf8CString)
        let output = mkstemp(&template)
        guard output >= 0 else { throw Failure(description: "mkstemp failed") }
        _ = fcntl(output, F_SETFD, FD_CLOEXEC)
        let path = String(cString: template)
        defer {
            close(output)
            unlink(path)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, output, 1)
        posix_spawn_file_actions_adddup2(&actions, output, 2)
        var argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, command[0], &actions, nil, &argv, environ)
        guard spawned == 0 else { throw Failure(description: "cannot run \(command[0]): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        let text = fileText(path)
        let exited = status & 0x7F == 0
        return (exited ? (status >> 8) & 0xFF : 128 + (status & 0x7F), text)
    }
}
