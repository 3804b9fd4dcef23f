/**
 * Widget messages as Zulip makes them: the first submessage's JSON text
 * for `/poll` and `/todo` (Python's line splitting, stripping and
 * `json.dumps` escaping), and the checks of poll and to-do data.
 */
import { assert, describe, it } from "@effect/vitest"
import {
  checkWidgetData,
  parseSubmessageContent,
  pythonJson,
  widgetContent,
  widgetFromContent,
  widgetTypeOf
} from "../../src/domain/Widget.ts"
import { messageId, submessageId, userId } from "../../src/domain/Ids.ts"

describe("widgetContent", () => {
  // Expected texts are Zulip's (zerver/lib/widget.py with Python's json.dumps).
  const cases: ReadonlyArray<readonly [string, string | undefined]> = [
    ["/poll What's for lunch?\nPizza\n- Sushi\n* Tacos\n\n  -   Salad  ", "{\"widget_type\": \"poll\", \"extra_data\": {\"question\": \"What's for lunch?\", \"options\": [\"Pizza\", \"Sushi\", \"Tacos\", \"Salad\"]}}"],
    ["/poll", "{\"widget_type\": \"poll\", \"extra_data\": {\"question\": \"\", \"options\": []}}"],
    ["/poll\nYes\nNo", "{\"widget_type\": \"poll\", \"extra_data\": {\"question\": \"\", \"options\": [\"Yes\", \"No\"]}}"],
    ["/polls are open", undefined],
    ["hello /poll x", undefined],
    ["/todo Release\nWrite notes: the changelog: all of it\n- Tag\n*Ship: now", "{\"widget_type\": \"todo\", \"extra_data\": {\"task_list_title\": \"Release\", \"tasks\": [{\"task\": \"Write notes\", \"desc\": \"the changelog: all of it\"}, {\"task\": \"Tag\", \"desc\": \"\"}, {\"task\": \"Ship\", \"desc\": \"now\"}]}}"],
    ["/todo", "{\"widget_type\": \"todo\", \"extra_data\": {\"task_list_title\": \"\", \"tasks\": []}}"],
    ["/poll Caf\u00e9 \u2615 \"quoted\" \\ back\n\ud83c\udf55 pizza\n--double", "{\"widget_type\": \"poll\", \"extra_data\": {\"question\": \"Caf\\u00e9 \\u2615 \\\"quoted\\\" \\\\ back\", \"options\": [\"\\ud83c\\udf55 pizza\", \"-double\"]}}"],
    ["/poll\tTabbed question\r\nOne\rTwo\u2028Three", "{\"widget_type\": \"poll\", \"extra_data\": {\"question\": \"Tabbed question\", \"options\": [\"One\", \"Two\", \"Three\"]}}"],
    ["/todo \n: empty task\nx:y", "{\"widget_type\": \"todo\", \"extra_data\": {\"task_list_title\": \"\", \"tasks\": [{\"task\": \"\", \"desc\": \"empty task\"}, {\"task\": \"x:y\", \"desc\": \"\"}]}}"],
  ]
  for (const [content, expected] of cases) {
    it(`${JSON.stringify(content)}`, () => assert.strictEqual(widgetContent(content), expected))
  }
})

describe("widgetFromContent (POST /messages's widget_content)", () => {
  const zform = (extra: string) => `{"widget_type": "zform", "extra_data": ${extra}}`
  it("stores a valid zform as Python's json.dumps writes it: floats as Python's repr, other keys kept", () => {
    const extra = "{\"type\":\"choices\",\"heading\":\"H\u00e9\",\"choices\":[],\"n\":[1,2.0,-0.0,0.5,1e16,1.5e-5,123456789.125,1e-4]}"
    assert.deepStrictEqual(widgetFromContent(`{"extra_data":${extra},"widget_type":"zform","ignored":1}`), {
      content: "{\"widget_type\": \"zform\", \"extra_data\": {\"type\": \"choices\", \"heading\": \"H\\u00e9\", " +
        "\"choices\": [], \"n\": [1, 2.0, -0.0, 0.5, 1e+16, 1.5e-05, 123456789.125, 0.0001]}}"
    })
  })
  it("refuses with Zulip's texts", () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["nope", "Widgets: API programmer sent invalid JSON content"],
      ["1.0", "Widgets: widget_content is not a dict"],
      ["{\"widget_type\": 1, \"extra_data\": {}}", "Widgets: unknown widget type: 1"],
      [zform("[]"), "Widgets: extra_data is not a dict"],
      [zform("{\"type\": \"choices\", \"heading\": \"h\", \"choices\": [{\"short_name\": \"a\", \"long_name\": \"b\", \"reply\": 1.5}]}"),
        "Widgets: extra_data[\"choices\"][0][\"reply\"] is not a string"]
    ]
    for (const [text, refusal] of cases) assert.deepStrictEqual(widgetFromContent(text), { refusal }, text)
  })
})

describe("pythonJson", () => {
  it("escapes what Python escapes, with its separators", () => {
    assert.strictEqual(pythonJson({ a: ["\u0000\u007f\b\f", 1, true, null] }), '{"a": ["\\u0000\\u007f\\b\\f", 1, true, null]}')
  })
})

describe("checkWidgetData", () => {
  const poll = (data: string, author = false) => checkWidgetData("poll", parseSubmessageContent(data)!.value, author)
  const todo = (data: string, author = false) => checkWidgetData("todo", parseSubmessageContent(data)!.value, author)
  const cases: ReadonlyArray<readonly [string | undefined, string | undefined]> = [
    [poll('{"type":"vote","key":"58,1","vote":1}'), undefined],
    [poll('{"type":"vote","key":"58,1","vote":-1}'), undefined],
    // Python's bool is an int: true is 1.
    [poll('{"type":"vote","key":"58,1","vote":true}'), undefined],
    [poll('{"type":"vote","key":"58,1","vote":2}'), 'Invalid poll data["vote"]'],
    [poll('{"type":"vote","key":"58,1","vote":1.0}'), 'poll data["vote"] is not an integer'],
    [poll('{"type":"vote","key":58,"vote":1}'), 'poll data["key"] is not a string'],
    [poll('{"type":"vote","vote":1}'), "key key is missing from poll data"],
    [poll('{"type":"vote","key":"k","vote":1,"extra":0,"more":1}'), "Unexpected arguments: extra, more"],
    [poll('{"type":"question","question":"Why?"}'), "You can't edit a question unless you are the author."],
    [poll('{"type":"question","question":"Why?"}', true), undefined],
    [poll('{"type":"question","question":5}', true), 'poll data["question"] is not a string'],
    [poll('{"type":"new_option","option":"Tea","idx":1000}'), undefined],
    [poll('{"type":"new_option","option":"Tea","idx":1001}'), 'poll data["idx"] is too large'],
    [poll('{"type":"new_option","option":"Tea","idx":-1}'), 'poll data["idx"] is too small'],
    [poll('{"type":"close"}'), "Unknown type for poll data: close"],
    [poll('{"type":7}'), 'poll data["type"] is not a string'],
    [poll('{"key":"k"}'), "type key is missing from poll data"],
    [poll("[1]"), "poll data is not a dict"],
    [poll('"vote"'), "poll data is not a dict"],
    [todo('{"type":"new_task","key":0,"task":"T","desc":"","completed":false}'), undefined],
    [todo('{"type":"new_task","key":0,"task":"T","desc":"","completed":0}'), 'todo data["completed"] is not a boolean'],
    [todo('{"type":"new_task","key":1001,"task":"T","desc":"","completed":false}'), 'todo data["key"] is too large'],
    [todo('{"type":"strike","key":"0,58"}'), undefined],
    [todo('{"type":"strike","key":0}'), 'todo data["key"] is not a string'],
    [todo('{"type":"new_task_list_title","title":"New"}'), "You can't edit the task list title unless you are the author."],
    [todo('{"type":"new_task_list_title","title":"New"}', true), undefined],
    [todo('{"type":"vote"}'), "Unknown type for todo data: vote"],
    // Other widget types (or none): not checked.
    [checkWidgetData(undefined, 5, false), undefined],
    [checkWidgetData("zform", [], false), undefined]
  ]
  cases.forEach(([actual, expected], i) => it(`case ${i}: ${expected ?? "accepted"}`, () => assert.strictEqual(actual, expected)))
})

describe("parseSubmessageContent and widgetTypeOf", () => {
  it("refuses what is not JSON", () => {
    for (const text of ["", "{", "vote", "{'a': 1}", "NaN", '"\\ud800"', '{"\\udc00": 1}', '["a\\udbffb"]']) {
      assert.strictEqual(parseSubmessageContent(text), undefined, text)
    }
    assert.deepStrictEqual(parseSubmessageContent('"\\ud83c\\udf55"'), { value: "\ud83c\udf55" })
  })
  const sub = (id: number, msg_type: string, content: string) => ({
    id: submessageId(id),
    message_id: messageId(1),
    sender_id: userId(1),
    msg_type,
    content
  })
  it("reads the first widget submessage's widget_type", () => {
    assert.strictEqual(widgetTypeOf([]), undefined)
    assert.strictEqual(widgetTypeOf([sub(1, "other", '{"widget_type":"todo"}'), sub(2, "widget", '{"widget_type":"poll"}')]), "poll")
    assert.strictEqual(widgetTypeOf([sub(1, "widget", "not json")]), undefined)
    assert.strictEqual(widgetTypeOf([sub(1, "widget", '["poll"]')]), undefined)
  })
})
