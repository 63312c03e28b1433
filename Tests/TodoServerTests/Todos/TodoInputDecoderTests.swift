import Testing
@testable import TodoServer

@Suite("TodoInputDecoder")
struct TodoInputDecoderTests {
    let decoder = TodoInputDecoder()

    private func draft(_ json: String) -> Result<TodoDraft, TodosError> { decoder.draft(from: Array(json.utf8)) }
    private func patch(_ json: String) -> Result<TodoPatch, TodosError> { decoder.patch(from: Array(json.utf8)) }

    private func fieldErrors<T>(_ result: Result<T, TodosError>) -> [FieldError] {
        if case .failure(.invalidFields(let errors)) = result { return errors }
        return []
    }

    private func badRequestDetail<T>(_ result: Result<T, TodosError>) -> String? {
        if case .failure(.malformedBody(let problem)) = result, problem.status == 400 { return problem.detail }
        return nil
    }

    @Test("a create body: title trimmed, defaults for the rest")
    func minimal() throws {
        #expect(try draft(#"{"title":"  Buy milk \n"}"#).get() == TodoDraft(title: "Buy milk", completed: false, order: nil, dueDate: nil))
        #expect(try draft(#"{"title":"x","completed":true,"order":-3,"dueDate":"2026-11-24"}"#).get()
            == TodoDraft(title: "x", completed: true, order: -3, dueDate: CalendarDay("2026-11-24")))
    }

    @Test("read-only fields are ignored, whatever their type")
    func readOnly() throws {
        let body = #"{"title":"x","id":5,"url":null,"createdAt":"yesterday","updatedAt":[1]}"#
        #expect(try draft(body).get().title == "x")
    }

    @Test("every bad field is named, sorted by field")
    func badFields() {
        let body = #"{"title":"   ","completed":"yes","order":1.5,"dueDate":"2026-02-30","colour":"red","Title":"x"}"#
        #expect(fieldErrors(draft(body)) == [
            FieldError(field: "Title", message: "is not a known field"),
            FieldError(field: "colour", message: "is not a known field"),
            FieldError(field: "completed", message: "must be true or false, not a string"),
            FieldError(field: "dueDate", message: "must be a calendar day as YYYY-MM-DD"),
            FieldError(field: "order", message: "must be an integer from -9007199254740991 to 9007199254740991"),
            FieldError(field: "title", message: "must not be empty"),
        ])
        let typed = #"{"title":3,"completed":"yes","order":1.5,"dueDate":"2026-02-30"}"#
        #expect(fieldErrors(draft(typed)) == [
            FieldError(field: "completed", message: "must be true or false, not a string"),
            FieldError(field: "dueDate", message: "must be a calendar day as YYYY-MM-DD"),
            FieldError(field: "order", message: "must be an integer from -9007199254740991 to 9007199254740991"),
            FieldError(field: "title", message: "must be a string, not a number"),
        ])
    }

    @Test("title is required, 1 to 500 characters after trimming")
    func titleRules() throws {
        #expect(fieldErrors(draft(#"{}"#)) == [FieldError(field: "title", message: "is required")])
        #expect(fieldErrors(draft(#"{"title":null}"#)) == [FieldError(field: "title", message: "must be a string, not null")])
        #expect(fieldErrors(draft(#"{"title":" \t "}"#)) == [FieldError(field: "title", message: "must not be empty")])
        let longest = String(repeating: "é", count: 500)
        #expect(try draft(#"{"title":"  \#(longest)  "}"#).get().title == longest)
        #expect(fieldErrors(draft(#"{"title":"\#(longest)x"}"#))
            == [FieldError(field: "title", message: "must be at most 500 characters")])
    }

    @Test("order bounds and dueDate shapes")
    func ranges() throws {
        #expect(try draft(#"{"title":"x","order":9007199254740991}"#).get().order == 9_007_199_254_740_991)
        #expect(fieldErrors(draft(#"{"title":"x","order":9007199254740992}"#)).map(\.field) == ["order"])
        #expect(try draft(#"{"title":"x","order":-32395008938.0}"#).get().order == -32_395_008_938)
        #expect(try draft(#"{"title":"x","order":3e2}"#).get().order == 300)
        #expect(fieldErrors(draft(#"{"title":"x","order":9007199254740992.0}"#)).map(\.field) == ["order"])
        #expect(fieldErrors(draft(#"{"title":"x","order":1e400}"#)).map(\.field) == ["order"])
        #expect(fieldErrors(draft(#"{"title":"x","order":"3"}"#))
            == [FieldError(field: "order", message: "must be an integer or null, not a string")])
        #expect(fieldErrors(draft(#"{"title":"x","dueDate":20261124}"#))
            == [FieldError(field: "dueDate", message: "must be a YYYY-MM-DD string or null, not a number")])
        #expect(try draft(#"{"title":"x","order":null,"dueDate":null}"#).get() == TodoDraft(title: "x", completed: false))
    }

    @Test("malformed JSON and non-objects are 400, with the reason")
    func malformed() {
        #expect(badRequestDetail(draft("")) == "The request body is empty; a JSON object is expected.")
        #expect(badRequestDetail(draft(#"{"title":"x",}"#)) == "The body is not valid JSON: trailing comma in object at byte 13.")
        #expect(badRequestDetail(draft(#"{"title":"a","title":"b"}"#)) == "The body is not valid JSON: duplicate key \"title\" at byte 13.")
        #expect(badRequestDetail(draft(#"["title"]"#)) == "The body must be a JSON object, not an array.")
        #expect(badRequestDetail(draft(#""x""#)) == "The body must be a JSON object, not a string.")
        #expect(badRequestDetail(draft("title=x")) != nil)
    }

    @Test("a merge patch: absent leaves alone, null clears order and dueDate")
    func mergePatch() throws {
        #expect(try patch(#"{}"#).get() == TodoPatch())
        #expect(try patch(#"{"title":" New "}"#).get() == TodoPatch(title: "New"))
        #expect(try patch(#"{"order":null,"dueDate":null}"#).get() == TodoPatch(order: .some(nil), dueDate: .some(nil)))
        #expect(try patch(#"{"order":95,"completed":true}"#).get() == TodoPatch(completed: true, order: 95))
        #expect(fieldErrors(patch(#"{"title":null,"completed":null}"#)) == [
            FieldError(field: "completed", message: "must be true or false, not null"),
            FieldError(field: "title", message: "must be a string, not null"),
        ])
    }
}
