import HTTPValues
import TodoData

/// Shapes upcoming groups into sections with titles, or the seeds' "nothing due" message; the
/// store's failure into its problem. Generic over its use cases, as `TodosPresenter`.
public struct UpcomingPresenter<UseCases: UpcomingUseCases>: UpcomingModuleInput {
    private let interactor: UseCases

    public init(interactor: UseCases) {
        self.interactor = interactor
    }

    public func presentUpcoming(_ request: UpcomingRequest, context: RequestContext) -> Pending<ViewAnswer<UpcomingViewModel>> {
        interactor.owned(by: context.owner).upcoming(request).map(with: context) { result, context in
            switch result {
            case .success(let data):
                return .model(ResponseViewModel(status: 200, body: UpcomingViewModel(data, baseURL: context.baseURL)))
            case .failure(.store(let failure)):
                context.logger.error("upcoming: the store failed", metadata: ["reason": "\(failure.reason)"])
                return .problem(ResponseViewModel(storeFailure: failure))
            }
        }
    }
}

extension UpcomingViewModel {
    static let nothingDueMessage = "Nothing is due before the end of next week."

    /// The groups as titled sections with absolute urls, or the seeds' "nothing due" message.
    init(_ data: UpcomingData, baseURL: String) {
        let sections = data.sections.map { section in
            UpcomingViewModel.Section(
                relativeDate: section.relativeDate.rawValue,
                title: Self.title(of: section.relativeDate),
                items: section.items.map { TodoViewModel($0, baseURL: baseURL) })
        }
        self.init(sections: sections, message: sections.isEmpty ? Self.nothingDueMessage : nil)
    }

    static func title(of relativeDate: RelativeDate) -> String {
        switch relativeDate {
        case .today: "Today"
        case .tomorrow: "Tomorrow"
        case .laterThisWeek: "Later this week"
        case .nextWeek: "Next week"
        }
    }
}

/// The upcoming body: titled sections and a message (null unless nothing is upcoming).
public struct UpcomingViewModel: JSONWritable, Sendable, Equatable {
    public var sections: [Section]
    public var message: String?

    /// One titled group of to-dos.
    public struct Section: JSONWritable, Sendable, Equatable {
        public var relativeDate: String
        public var title: String
        public var items: [TodoViewModel]

        public func write(to writer: inout JSONWriter) {
            writer.beginObject()
            writer.key("items")
            items.write(to: &writer)
            writer.key("relativeDate")
            writer.string(relativeDate)
            writer.key("title")
            writer.string(title)
            writer.endObject()
        }
    }

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("message")
        if let message { writer.string(message) } else { writer.null() }
        writer.key("sections")
        sections.write(to: &writer)
        writer.endObject()
    }
}
