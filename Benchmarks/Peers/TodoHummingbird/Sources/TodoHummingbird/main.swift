import Hummingbird
import Logging
import Metrics
import NIOPosix
import Prometheus

// The Hummingbird peer of TodoServer: the same contract with the middleware a Hummingbird user
// adds for it (request ids, a log line per request on stdout, Prometheus metrics, CORS).
// Arguments: PORT THREADS.
let arguments = CommandLine.arguments
let port = arguments.count > 1 ? Int(arguments[1]) ?? 8080 : 8080
let threads = arguments.count > 2 ? Int(arguments[2]) ?? 2 : 2

LoggingSystem.bootstrap(StreamLogHandler.standardOutput)
var logger = Logger(label: "TodoHummingbird")
logger.logLevel = .info

let registry = PrometheusCollectorRegistry()
var metricsFactory = PrometheusMetricsFactory(registry: registry)
metricsFactory.defaultDurationHistogramBuckets = [
    .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .microseconds(2500),
    .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
    .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(5),
]
MetricsSystem.bootstrap(metricsFactory)

let router = Router()
router.addMiddleware {
    RequestIDMiddleware()
    LogRequestsMiddleware(.info)
    MetricsMiddleware()
    CORSMiddleware(
        allowOrigin: .all,
        allowHeaders: [.contentType, .ifMatch, .ifNoneMatch],
        allowMethods: [.get, .head, .post, .put, .patch, .delete, .options],
        exposedHeaders: ["Location", "ETag", "Link", "X-Total-Count", "X-Request-ID"],
        maxAge: .seconds(86400)
    )
}
TodoRoutes(store: Store(), registry: registry).add(to: router)

let app = Application(
    router: router,
    configuration: .init(address: .hostname("127.0.0.1", port: port)),
    eventLoopGroupProvider: .shared(MultiThreadedEventLoopGroup(numberOfThreads: threads)),
    logger: logger
)
try await app.runService()
