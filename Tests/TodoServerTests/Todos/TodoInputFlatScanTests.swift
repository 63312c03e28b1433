import TestSupport
import Testing

@testable import TodoData
@testable import TodoServer

@Suite("TodoInputDecoder: bodies of the usual shape read without the generic parser")
struct TodoInputFlatScanTests {
    private let scanning = TodoInputDecoder()
    private var generic: TodoInputDecoder {
        var decoder = TodoInputDecoder()
        decoder.usesFastPaths = false
        return decoder
    }

    /// Bodies the scan takes, bodies it must hand to the generic parser, and bodies in between.
    static let bodies: [String] = [
        #"{"title":"a thirty character title here!"}"#,
        #"{"completed":true}"#,
        #" { "title" : "Buy milk" , "completed" : false , "dueDate" : null , "order" : null } "#,
        "{\"title\":\"x\"}\r\n\t",
        #"{}"#,
        #"{"dueDate":"2026-11-24","title":"t"}"#,
        #"{"dueDate":"2026-02-30","title":"t"}"#,
        #"{"title":"  padded  "}"#,
        #"{"title":" "}"#,
        #"{"title":""}"#,
        #"{"title":null}"#,
        #"{"title":true}"#,
        #"{"completed":null}"#,
        #"{"completed":"yes"}"#,
        #"{"order":null,"title":"o"}"#,
        // The generic parser's: numbers, escapes, non-ASCII, nesting, unknown and read-only keys, duplicates, errors.
        #"{"title":"x","order":-3}"#,
        #"{"title":"x","order":1.5}"#,
        #"{"title":"a\"b"}"#,
        #"{"title":"a\u0009b"}"#,
        #"{"title":"café"}"#,
        #"{"title":"\u00e9t\u00e9"}"#,
        #"{"title":"x","id":"abc"}"#,
        #"{"title":"x","colour":"red"}"#,
        #"{"Title":"x"}"#,
        #"{"title":"x","title":"y"}"#,
        #"{"completed":true,"completed":false}"#,
        #"{"title":"x",}"#,
        #"{"title":"x""#,
        #"{"title":"x"} {}"#,
        #"{"title":"x"}x"#,
        #"{"title":tru}"#,
        #"{"title":truex}"#,
        #"{"title":["x"]}"#,
        #"{"title":{"a":1}}"#,
        #"[{"title":"x"}]"#,
        #""title""#,
        "",
        " ",
        "title=x&completed=true",
        "{\"title\":\"a\u{1}b\"}",
        "{\"title\":\"tab\there\"}",
        "{\"title\":\"x\"\u{0}}",
        #"{"title" "x"}"#,
        #"{title:"x"}"#,
    ]

    @Test("drafts and patches: the same result (value or error) as the generic parser, for every body")
    func sameAsGeneric() {
        for body in Self.bodies {
            let bytes = Array(body.utf8)
            #expect(scanning.draft(from: bytes) == generic.draft(from: bytes), "draft \(body)")
            #expect(scanning.patch(from: bytes) == generic.patch(from: bytes), "patch \(body)")
        }
    }

    @Test("the usual bodies are taken by the scan, with the values the generic parser reads")
    func scanned() throws {
        let members = try #require(
            TodoInputDecoder.FlatScan.members(
                of: Array(#" {"title":"Buy milk","completed":false,"dueDate":null,"order":null}"#.utf8)))
        #expect(
            members == TodoInputDecoder.WritableMembers(title: .string("Buy milk"), completed: .bool(false), order: .null, dueDate: .null))
        #expect(
            TodoInputDecoder.FlatScan.members(of: Array(#"{"completed":true}"#.utf8))
                == TodoInputDecoder.WritableMembers(completed: .bool(true)))
        #expect(TodoInputDecoder.FlatScan.members(of: Array("{}".utf8)) == TodoInputDecoder.WritableMembers())
        for handedOn in [
            #"{"title":"x","order":1}"#, #"{"title":"é"}"#, #"{"title":"a\"b"}"#, #"{"id":"x"}"#,
            #"{"title":"x","title":"x"}"#, #"{"title":"x",}"#, #"{"title":"x"}x"#, "",
        ] {
            #expect(TodoInputDecoder.FlatScan.members(of: Array(handedOn.utf8)) == nil, "\(handedOn)")
        }
        #expect(
            try scanning.draft(from: Array(#"{"title":"a thirty character title here!"}"#.utf8)).get()
                == TodoDraft(title: "a thirty character title here!", completed: false, order: nil, dueDate: nil))
    }

    @Test("titles: plain printable ASCII is kept as it is; anything else takes the general checks with the same outcome")
    func titles() {
        #expect(TodoInputDecoder.plainASCIITitle("Buy milk") == "Buy milk")
        #expect(TodoInputDecoder.plainASCIITitle(String(repeating: "x", count: TodoInputDecoder.maxTitleScalars)) != nil)
        for general in [
            " lead", "trail ", "", "tab\there", "del\u{7F}", "é", String(repeating: "x", count: TodoInputDecoder.maxTitleScalars + 1),
        ] {
            #expect(TodoInputDecoder.plainASCIITitle(general) == nil, "\(general.debugDescription)")
        }
        let seed = UInt64.random(in: 1...UInt64.max)
        print("TodoInputFlatScanTests.titles: seed \(seed)")
        var generator = SplitMix64(seed: seed)
        let alphabet: [Character] = ["a", "Z", "0", " ", "~", "!", "\t", "\n", "é", "\u{7F}", "\u{85}", "\u{2003}", "\""]
        for _ in 0..<500 {
            let title = String((0..<Int.random(in: 0...12, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
            var writer = JSONWriter()
            writer.beginObject()
            writer.key("title")
            writer.string(title)
            writer.endObject()
            let body = writer.finish()
            #expect(scanning.draft(from: body) == generic.draft(from: body), "seed \(seed), title \(title.debugDescription)")
            #expect(scanning.patch(from: body) == generic.patch(from: body), "seed \(seed), title \(title.debugDescription)")
        }
    }
}
