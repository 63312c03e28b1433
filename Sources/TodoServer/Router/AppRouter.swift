import EventHTTP
import Foundation

/// The wireframe: maps method and path to a module, and answers what no module owns
/// (404, 405 with `Allow`, 413, 414, 415, CORS preflight). Built once, at start-up.
public struct AppRouter: Sendable {
    private let todos: any TodosModuleInput
    private let upcoming: any UpcomingModuleInput
    private let system: any SystemModuleInput
    private let screening: RequestScreening
    private let cors: CORSPolicy
    private let serializer: JSONSerializer

    public init(
        todos: any TodosModuleInput, upcoming: any UpcomingModuleInput, system: any SystemModuleInput,
        screening: RequestScreening, cors: CORSPolicy, serializer: JSONSerializer
    ) {
        self.todos = todos
        self.upcoming = upcoming
        self.system = system
        self.screening = screening
        self.cors = cors
        self.serializer = serializer
    }

    /// Builds and wires every module once around one store, clock and id generator.
    public static func makeRouter(
        store: any TodoStore, clock: any TodoClock, ids: any IDGenerator, defaultTimeZone: TimeZone,
        screening: RequestScreening, cors: CORSPolicy
    ) -> AppRouter {
        let serializer = JSONSerializer()
        return AppRouter(
            todos: TodosPresenter(
                interactor: TodosInteractor(store: store, clock: clock, ids: ids), view: TodosView(serializer: serializer)),
            upcoming: UpcomingPresenter(
                interactor: UpcomingInteractor(store: store, clock: clock, defaultTimeZone: defaultTimeZone),
                view: UpcomingView(serializer: serializer)),
            system: SystemPresenter(interactor: SystemInteractor(store: store), view: SystemView(serializer: serializer)),
            screening: screening, cors: cors, serializer: serializer)
    }

    /// Answers `request` through `respond`, exactly once.
    public func routeRequest(_ request: HTTPRequest, context: RequestContext, respond: @escaping Respond) {
        if let (problem, close) = screening.problem(with: request) {
            return routeProblem(problem, headers: close ? ["Connection": "close"] : [:], respond: respond)
        }
        guard let route = Route(path: request.path) else {
            return routeProblem(.notFound("No route matches '\(request.path)'."), respond: respond)
        }
        let allow = route.allowedMethods.map(\.rawValue).joined(separator: ", ")
        if request.method == .options {
            var headers = cors.preflightHeaders(requestedHeaders: request.headers["Access-Control-Request-Headers"])
            headers.set("Allow", allow)
            return respond(HTTPResponse(status: 204, headers: headers))
        }
        guard route.allowedMethods.contains(request.method) else {
            let problem = ProblemDetails.methodNotAllowed("\(request.method.rawValue) is not allowed on \(route.template); use \(allow).")
            return routeProblem(problem, headers: ["Allow": allow], respond: respond)
        }
        if [.post, .put, .patch].contains(request.method), !request.body.isEmpty,
           let type = request.headers["Content-Type"], !RequestScreening.acceptsBody(ofType: type) {
            return routeProblem(.unsupportedMediaType(type), respond: respond)
        }
        routeToModule(route, request: request, context: context, respond: respond)
    }

    private func routeToModule(_ route: Route, request: HTTPRequest, context: RequestContext, respond: @escaping Respond) {
        switch (route, request.method) {
        case (.index, _): system.presentIndex(context: context, respond: respond)
        case (.health, _): system.presentHealth(context: context, respond: respond)
        case (.upcoming, _): upcoming.presentUpcoming(context: context, respond: respond)
        case (.todos, .post): todos.presentCreation(body: request.body, context: context, respond: respond)
        case (.todos, .delete): todos.presentDeletionOfAll(context: context, respond: respond)
        case (.todos, _): todos.presentList(context: context, respond: respond)
        case (.todo(let id), .patch): todos.presentPatch(id: id, body: request.body, context: context, respond: respond)
        case (.todo(let id), .put): todos.presentReplacement(id: id, body: request.body, context: context, respond: respond)
        case (.todo(let id), .delete): todos.presentDeletion(id: id, context: context, respond: respond)
        case (.todo(let id), _): todos.presentTodo(id: id, context: context, respond: respond)
        }
    }

    private func routeProblem(_ problem: ProblemDetails, headers: HTTPHeaders = [:], respond: Respond) {
        respond(serializer.response(for: ResponseViewModel(problem: problem, headers: headers)))
    }
}
