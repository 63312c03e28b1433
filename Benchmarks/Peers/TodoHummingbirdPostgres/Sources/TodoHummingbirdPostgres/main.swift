import Foundation
import Hummingbird
import Logging
import Metrics
import NIOPosix
import PostgresNIO
import Prometheus

// The PostgreSQL peer of TodoServer: the in-memory peer's middleware (request ids, a log line per
// request on stdout, Prometheus metrics, CORS) and routes on a `PostgresClient` that shares the
// server's event loops, run as a service of the application (as todos-postgres does).
// Arguments: PORT THREADS. Environment: TODO_PG_SOCKET (the server's unix socket file, e.g.
// /tmp/x/.s.PGSQL.5432), TODO_PG_DATABASE (postgres), TODO_PG_USER (postgres), TODO_PG_CONNECTIONS
// (the pool's most connections, PostgresClient's `maximumConnections`: its default, 20, when unset;
// Benchmarks/postgres-peer.sh sweeps it and runs the peer with its best), TODO_OWNER_TOKENS
// (`owner:token` pairs, comma-separated, as TodoServer reads them: each token's requests act on
// its owner's to-dos only; unset: the one shared list, as before owners).
let arguments = CommandLine.arguments
let port = arguments.count > 1 ? Int(arguments[1]) ?? 8080 : 8080
let threads = arguments.count > 2 ? Int(arguments[2]) ?? 2 : 2
let environment = ProcessInfo.processInfo.environment
guard let socket = environment["TODO_PG_SOCKET"] else { fatalError("TODO_PG_SOCKET is not set") }
let owners: [String: Owner]
do {
    owners = try environment["TODO_OWNER_TOKENS"].map(OwnerTokens.parse) ?? [:]
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(64)
}

LoggingSystem.bootstrap(StreamLogHandler.standardOutput)
var logger = Logger(label: "TodoHummingbirdPostgres")
logger.logLevel = .info

let registry = PrometheusCollectorRegistry()
var metricsFactory = PrometheusMetricsFactory(registry: registry)
metricsFactory.defaultDurationHistogramBuckets = [
    .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .microseconds(2500),
    .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
    .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(5),
]
MetricsSystem.bootstrap(metricsFactory)

let eventLoopGroup = MultiThreadedEventLoopGroup(numberOfThreads: threads)
var configuration = PostgresClient.Configuration(
    unixSocketPath: socket, username: environment["TODO_PG_USER"] ?? "postgres", password: nil,
    database: environment["TODO_PG_DATABASE"] ?? "postgres")
if let connections = environment["TODO_PG_CONNECTIONS"].flatMap({ Int($0) }) {
    configuration.options.maximumConnections = connections
}
let client = PostgresClient(configuration: configuration, eventLoopGroup: eventLoopGroup, backgroundLogger: logger)
let todos = PostgresTodos(client: client, logger: logger)

let router = Router(context: TodoContext.self)
router.addMiddleware {
    RequestIDMiddleware()
    LogRequestsMiddleware(.info)
    MetricsMiddleware()
    CORSMiddleware(
        allowOrigin: .all,
        allowHeaders: owners.isEmpty ? [.contentType, .ifMatch, .ifNoneMatch] : [.contentType, .ifMatch, .ifNoneMatch, .authorization],
        allowMethods: [.get, .head, .post, .put, .patch, .delete, .options],
        exposedHeaders: ["Location", "ETag", "Link", "X-Total-Count", "X-Request-ID"],
        maxAge: .seconds(86400)
    )
}
PostgresRoutes(todos: todos, registry: registry, owners: owners).add(to: router)

var app = Application(
    router: router,
    configuration: .init(address: .hostname("127.0.0.1", port: port)),
    eventLoopGroupProvider: .shared(eventLoopGroup),
    logger: logger
)
app.addServices(client)
app.beforeServerStarts {
    try await todos.createTable()
    if !owners.isEmpty { try await todos.migrateToOwners() }
}
try await app.runService()
