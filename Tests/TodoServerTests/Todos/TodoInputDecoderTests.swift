import Testing

@testable import TodoData
@testable import TodoServer

@Suite("TodoInputDecoder")
struct TodoInputDecoderTests {
    let decoder = TodoInputDecoder()

    private func draft(_ json: String) -> Result<TodoDraft, TodoRequestError> { decoder.draft(from: Array(json.utf8)) }
    private func patch(_ json: String) -> Result<TodoChange, TodoRequestError> { decoder.patch(from: Array(json.utf8)) }

    private func fieldErrors<T>(_ result: Result<T, TodoRequestError>) -> [FieldError] {
        if case .failure(.invalidFields(let errors)) = result { return errors }
        return []
    }

    private func badRequestDetail<T>(_ result: Result<T, TodoRequestError>) -> String? {
        if case .failure(.malformedBody(let problem)) = result, problem.status == 400 { return problem.detail }
        return nil
    }

    @Test("a create body: title trimmed, defaults for the rest")
    func minimal() throws {
        #expect(try draft(#"{"title":"  Buy milk \n"}"#).get() == TodoDraft(title: "Buy milk", completed: false, order: nil, dueDate: nil))
        #expect(
            try draft(#"{"title":"x","completed":true,"order":-3,"dueDate":"2026-11-24"}"#).get()
                == TodoDraft(title: "x", completed: true, order: -3, dueDate: CalendarDay("2026-11-24")))
    }

    @Test("read-only fields are ignored, whatever their type")
    func readOnly() throws {
        let body = #"{"title":"x","id":5,"url":null,"createdAt":"yesterday","updatedAt":[1]}"#
        #expect(try draft(body).get().title == "x")
    }

    @Test("every bad field is named, sorted by field")
    func badFields() {
        // The errors of `"completed":"yes","order":1.5,"dueDate":"2026-02-30"`, in both bodies.
        let badValues = [
            FieldError(field: "completed", message: "must be true or false, not a string"),
            FieldError(field: "dueDate", message: "must be a calendar day as YYYY-MM-DD"),
            FieldError(field: "order", message: "must be an integer from -9007199254740991 to 9007199254740991"),
        ]
        let body = #"{"title":"   ","completed":"yes","order":1.5,"dueDate":"2026-02-30","colour":"red","Title":"x"}"#
        #expect(
            fieldErrors(draft(body))
                == [
                    FieldError(field: "Title", message: "is not a known field"),
                    FieldError(field: "colour", message: "is not a known field"),
                ]
                + badValues + [FieldError(field: "title", message: "must not be empty")])
        let typed = #"{"title":3,"completed":"yes","order":1.5,"dueDate":"2026-02-30"}"#
        #expect(fieldErrors(draft(typed)) == badValues + [FieldError(field: "title", message: "must be a string, not a number")])
    }

    @Test("title is required, 1 to 500 characters after trimming")
    func titleRules() throws {
        #expect(fieldErrors(draft(#"{}"#)) == [FieldError(field: "title", message: "is required")])
        #expect(fieldErrors(draft(#"{"title":null}"#)) == [FieldError(field: "title", message: "must be a string, not null")])
        #expect(fieldErrors(draft(#"{"title":" \t "}"#)) == [FieldError(field: "title", message: "must not be empty")])
        let longest = String(repeating: "é", count: 500)
        #expect(try draft(#"{"title":"  \#(longest)  "}"#).get().title == longest)
        #expect(
            fieldErrors(draft(#"{"title":"\#(longest)x"}"#))
                == [FieldError(field: "title", message: Self.tooLong)])
    }

    static let tooLong = "must be at most 500 characters (Unicode scalars, so at most 2000 bytes of UTF-8)"

    @Test("the title limit counts Unicode scalars (so UTF-8 bytes are bounded too), not grapheme clusters")
    func titleScalars() throws {
        // One character on screen, 501 scalars.
        let stacked = "a" + String(repeating: "\u{301}", count: 500)
        #expect(stacked.count == 1)
        #expect(fieldErrors(draft(#"{"title":"\#(stacked)"}"#)) == [FieldError(field: "title", message: Self.tooLong)])
        #expect(fieldErrors(patch(#"{"title":"\#(stacked)"}"#)) == [FieldError(field: "title", message: Self.tooLong)])
        let flags = String(repeating: "🇩🇪", count: 251)  // 251 characters, 502 scalars
        #expect(fieldErrors(draft(#"{"title":"\#(flags)"}"#)) == [FieldError(field: "title", message: Self.tooLong)])
        // 500 scalars of 4 bytes: the most bytes a title can take.
        let widest = String(repeating: "😀", count: 500)
        #expect(widest.utf8.count == 2000)
        #expect(try draft(#"{"title":"\#(widest)"}"#).get().title == widest)
        let combining = "e" + String(repeating: "\u{301}", count: 499)
        #expect(try patch(#"{"title":"\#(combining)"}"#).get().title == combining)
    }

    @Test("control characters inside a title are refused: C0 (tab and line breaks too), DEL and C1")
    func titleControls() throws {
        func message(_ found: String) -> [FieldError] {
            [
                FieldError(
                    field: "title",
                    message: "must not contain control characters (U+0000-U+001F such as tab and newline, U+007F-U+009F); found \(found)")
            ]
        }
        #expect(fieldErrors(draft(#"{"title":"a\tb"}"#)) == message("U+0009 at character 2"))
        #expect(fieldErrors(draft(#"{"title":"a\r\nb"}"#)) == message("U+000D at character 2"))
        #expect(fieldErrors(draft(#"{"title":"\u0000"}"#)) == message("U+0000 at character 1"))
        #expect(fieldErrors(draft(#"{"title":"\u001b[31mred"}"#)) == message("U+001B at character 1"))
        #expect(fieldErrors(patch("{\"title\":\"é\u{7F}\"}")) == message("U+007F at character 2"))
        #expect(fieldErrors(draft("{\"title\":\"x\u{80}\"}")) == message("U+0080 at character 2"))
        #expect(fieldErrors(draft("{\"title\":\"x\u{9F}y\"}")) == message("U+009F at character 2"))
        // Trimmed white space (line breaks, tabs, U+0085 NEL) is not inside the title; U+00A0 and later are not controls.
        #expect(try draft(#"{"title":"\t\r\n Milk\u0085 "}"#).get().title == "Milk")
        #expect(try draft("{\"title\":\"a\u{A0}b\u{2028}c\"}").get().title == "a\u{A0}b\u{2028}c")
    }

    @Test("order bounds and dueDate shapes")
    func ranges() throws {
        #expect(try draft(#"{"title":"x","order":9007199254740991}"#).get().order == 9_007_199_254_740_991)
        #expect(fieldErrors(draft(#"{"title":"x","order":9007199254740992}"#)).map(\.field) == ["order"])
        #expect(try draft(#"{"title":"x","order":-32395008938.0}"#).get().order == -32_395_008_938)
        #expect(try draft(#"{"title":"x","order":3e2}"#).get().order == 300)
        #expect(fieldErrors(draft(#"{"title":"x","order":9007199254740992.0}"#)).map(\.field) == ["order"])
        #expect(fieldErrors(draft(#"{"title":"x","order":1e400}"#)).map(\.field) == ["order"])
        #expect(
            fieldErrors(draft(#"{"title":"x","order":"3"}"#))
                == [FieldError(field: "order", message: "must be an integer or null, not a string")])
        #expect(
            fieldErrors(draft(#"{"title":"x","dueDate":20261124}"#))
                == [FieldError(field: "dueDate", message: "must be a YYYY-MM-DD string or null, not a number")])
        #expect(try draft(#"{"title":"x","order":null,"dueDate":null}"#).get() == TodoDraft(title: "x", completed: false))
    }

    /// `order` literals and what they give: the integer, or nil for a 422 naming `order`. The
    /// decision is on the literal's exact value, not on the `Double` it rounds to: a hostile
    /// tester's `9007199254740990.9` was once rounded to 9007199254740991 and accepted.
    static let orderLiterals: [(literal: String, order: Int?)] = [
        ("9007199254740990.9", nil), ("9007199254740991.4", nil), ("1.0000000000000001", nil), ("7.0000000000000001", nil),
        ("1e-400", nil), ("-1e-400", nil), ("2.5", nil), ("4503599627370495.5", nil), ("0.00000000000000000001", nil),
        ("9007199254740991.0000000001", nil), ("-9007199254740991.0000000001", nil), ("9007199254740992", nil),
        ("-9007199254740992", nil), ("9007199254740992.0", nil), ("1e400", nil), ("-1e400", nil), ("1e16", nil),
        ("9223372036854775808", nil), ("0.5e1", 5), ("1.5e1", 15), ("15e-1", nil), ("100e-2", 1), ("1.0", 1), ("7.00", 7),
        ("-0.0", 0), ("-0", 0), ("0e-999999999999999999999", 0), ("1e2", 100), ("3e2", 300), ("-32395008938.0", -32_395_008_938),
        ("9007199254740991", 9_007_199_254_740_991), ("9007199254740991.000", 9_007_199_254_740_991),
        ("-9007199254740991", -9_007_199_254_740_991), ("90071992547409.91e2", 9_007_199_254_740_991),
        ("9.007199254740991e15", 9_007_199_254_740_991), ("9.0071992547409915e15", nil),
    ]

    @Test("order is decided on the literal's exact value: a fraction at any precision is 422 (POST and PUT, PATCH)")
    func orderLiterals() throws {
        let refused = [FieldError(field: "order", message: "must be an integer from -9007199254740991 to 9007199254740991")]
        for (literal, order) in Self.orderLiterals {
            // POST and PUT both read the body with `draft(from:)`, PATCH with `patch(from:)`.
            let created = draft(#"{"title":"x","order":"# + literal + "}")
            let patched = patch(#"{"order":"# + literal + "}")
            if let order {
                #expect((try? created.get())?.order == order, "POST/PUT \(literal)")
                #expect((try? patched.get()) == TodoChange(order: .set(order)), "PATCH \(literal)")
            } else {
                #expect(fieldErrors(created) == refused, "POST/PUT \(literal)")
                #expect(fieldErrors(patched) == refused, "PATCH \(literal)")
            }
        }
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
        #expect(try patch(#"{}"#).get() == TodoChange())
        #expect(try patch(#"{"title":" New "}"#).get() == TodoChange(title: "New"))
        #expect(try patch(#"{"order":null,"dueDate":null}"#).get() == TodoChange(order: .clear, dueDate: .clear))
        #expect(try patch(#"{"order":95,"completed":true}"#).get() == TodoChange(completed: true, order: .set(95)))
        #expect(
            fieldErrors(patch(#"{"title":null,"completed":null}"#)) == [
                FieldError(field: "completed", message: "must be true or false, not null"),
                FieldError(field: "title", message: "must be a string, not null"),
            ])
    }
}
