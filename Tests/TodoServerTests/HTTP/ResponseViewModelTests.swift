import HTTPValues
import Testing

@testable import TodoData
@testable import TodoServer

/// The store's failure has one answer, whichever module read the store (`TodosPresenter`,
/// `UpcomingPresenter`): 503, its problem, and `Retry-After` when the store knows when.
@Suite("ResponseViewModel: the store's failure as one answer")
struct ResponseViewModelTests {
    @Test("503 with the store's reason; Retry-After only when the store says when")
    func storeFailure() {
        let later = ResponseViewModel(storeFailure: StoreError(reason: "restarting", retryAfter: 7))
        #expect(later.status == 503)
        #expect(later.contentType == "application/problem+json")
        #expect(later.headers == ["Retry-After": "7"])
        #expect(later.body?.title == "Service Unavailable")
        #expect(later.body?.detail == "The to-do store is unavailable: restarting")
        let unknown = ResponseViewModel(storeFailure: StoreError(reason: "disk full"))
        #expect(unknown.status == 503)
        #expect(unknown.headers == [:])
        #expect(unknown.body?.detail == "The to-do store is unavailable: disk full")
    }
}
