import Testing

@testable import TodoData
@testable import TodoDataTestSupport
@testable import TodoServer

@Suite("TodosView: the display")
struct TodosViewTests {
    /// What the to-dos view writes with.
    let view = JSONSerializer()
    let model = TodoViewModel(makeTodo("abc", title: "Buy \"milk\"/é", order: nil), baseURL: "http://h:1")

    @Test("writes a to-do as exact JSON bytes, nulls included")
    func todo() throws {
        let capture = ResponseCapture()
        capture.respond(view.display(ResponseViewModel(status: 201, headers: ["Location": model.url], body: model)))
        let response = try #require(capture.only)
        #expect(response.status == 201)
        #expect(response.header("Location") == "http://h:1/todos/abc")
        #expect(response.header("Content-Type") == "application/json")
        #expect(
            response.text
                == #"{"completed":false,"createdAt":"2026-11-22T10:00:00.000Z","dueDate":null,"id":"abc","order":null,"title":"Buy \"milk\"/é","updatedAt":"2026-11-22T10:00:00.000Z","url":"http://h:1/todos/abc"}"#
        )
    }

    @Test("writes an empty list as [] and 204 with no body or type")
    func listAndEmpty() throws {
        let capture = ResponseCapture()
        capture.respond(
            view.display(ResponseViewModel(status: 200, body: TodoListViewModel(items: PackedTodos(), baseURL: "http://h:1"))))
        capture.respond(view.display(ResponseViewModel(status: 204)))
        #expect(capture.responses[0].text == "[]")
        #expect(capture.responses[1].status == 204)
        #expect(capture.responses[1].body.isEmpty)
        #expect(capture.responses[1].header("Content-Type") == nil)
    }

    @Test("writes a problem as application/problem+json")
    func problem() throws {
        let capture = ResponseCapture()
        let problem = ProblemDetails.unprocessable([FieldError(field: "title", message: "is required")])
        capture.respond(view.display(ResponseViewModel(problem: problem)))
        let response = try #require(capture.only)
        #expect(response.status == 422)
        #expect(response.header("Content-Type") == "application/problem+json")
        #expect(
            response.text
                == #"{"detail":"The body has invalid fields: title.","errors":[{"field":"title","message":"is required"}],"status":422,"title":"Unprocessable Content","type":"about:blank"}"#
        )
    }
}
