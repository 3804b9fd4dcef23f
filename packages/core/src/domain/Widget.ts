/**
 * Widget messages (polls and to-do lists) and their submessages.
 *
 * A message whose first word is `/poll` or `/todo` is a widget: its first
 * submessage, from its sender with `msg_type` "widget", holds the widget's
 * JSON (`widgetContent`), and readers then attach submessages with their
 * votes, options and tasks (POST /submessage), whose data is checked against
 * the widget's type (`checkWidgetData`) and otherwise stored verbatim.
 *
 * Zulip builds the widget's JSON with Python's `json.dumps` and parses with
 * Python's notions of whitespace and lines; clients compare the text, so the
 * same text is built here (`pythonJson`, `PythonSpace`, `pythonLines`).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { MessageId, SubmessageId, UserId } from "./Ids.ts"

/** @category models */
export const Submessage = Schema.Struct({
  id: SubmessageId,
  message_id: MessageId,
  sender_id: UserId,
  msg_type: Schema.String,
  content: Schema.String
})
/** @category models */
export type Submessage = typeof Submessage.Type

/** The `msg_type` of a widget's first submessage. @category constants */
export const WidgetMsgType = "widget"

/** The commands that make a message a widget. @category constants */
export const WidgetTypes = ["poll", "todo"] as const

/** The highest option index and task key widget data may carry (Zulip's `MAX_IDX`). @category constants */
export const MaxWidgetIndex = 1000

// Python's `str.isspace` characters (what `\s` and `strip()` use there).
const space = "\\t\\n\\v\\f\\r \\x1c-\\x1f\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000"
const firstSpace = new RegExp(`[${space}]`)
const edges = new RegExp(`^[${space}]+|[${space}]+$`, "g")
// Python's `str.splitlines` boundaries.
const lineBreak = /\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]/
const listMarker = new RegExp(`^[-*]?[${space}]*`)

/** Python's `str.strip()`. */
const pythonStrip = (s: string): string => s.replace(edges, "")

/** Python's `str.splitlines()`: no empty last line for a trailing break. */
const pythonLines = (s: string): Array<string> => {
  if (s === "") return []
  const lines = s.split(lineBreak)
  if (lines[lines.length - 1] === "") lines.pop()
  return lines
}

/** A JSON number written with a fraction or an exponent: a float to Python, never an integer. */
class JsonFloat {
  readonly value: number
  constructor(value: number) {
    this.value = value
  }
}

/** Python's `repr` of a float: the shortest digits, in exponent form below 1e-4 and from 1e16. */
const pythonFloat = (value: number): string => {
  if (Object.is(value, -0)) return "-0.0"
  if (value === 0) return "0.0"
  const [mantissa, exponentText] = value.toExponential().split("e") as [string, string]
  const exponent = Number(exponentText)
  const negative = mantissa.startsWith("-")
  const digits = mantissa.replace("-", "").replace(".", "")
  let out: string
  if (exponent < -4 || exponent >= 16) {
    const fraction = digits.slice(1)
    const sign = exponent < 0 ? "-" : "+"
    out = `${digits[0]}${fraction === "" ? "" : "." + fraction}e${sign}${String(Math.abs(exponent)).padStart(2, "0")}`
  } else if (exponent < 0) {
    out = "0." + "0".repeat(-exponent - 1) + digits
  } else if (digits.length <= exponent + 1) {
    out = digits + "0".repeat(exponent + 1 - digits.length) + ".0"
  } else {
    out = digits.slice(0, exponent + 1) + "." + digits.slice(exponent + 1)
  }
  return negative ? "-" + out : out
}

/**
 * Python's `json.dumps` with its defaults: `", "` and `": "` separators,
 * every character outside printable ASCII escaped as `\uXXXX`.
 *
 * @category encoding
 */
export const pythonJson = (value: unknown): string => {
  if (typeof value === "string") {
    let out = "\""
    for (let i = 0; i < value.length; i++) {
      const c = value.charCodeAt(i)
      const ch = value[i]!
      if (ch === "\"") out += "\\\""
      else if (ch === "\\") out += "\\\\"
      else if (ch === "\n") out += "\\n"
      else if (ch === "\r") out += "\\r"
      else if (ch === "\t") out += "\\t"
      else if (ch === "\b") out += "\\b"
      else if (ch === "\f") out += "\\f"
      else if (c < 0x20 || c > 0x7e) out += "\\u" + c.toString(16).padStart(4, "0")
      else out += ch
    }
    return out + "\""
  }
  if (value instanceof JsonFloat) return pythonFloat(value.value)
  if (Array.isArray(value)) return "[" + value.map(pythonJson).join(", ") + "]"
  if (value !== null && typeof value === "object") {
    return "{" + Object.entries(value).map(([k, v]) => `${pythonJson(k)}: ${pythonJson(v)}`).join(", ") + "}"
  }
  return JSON.stringify(value)
}

/** Options or tasks: the non-empty lines, a leading `-` or `*` list marker removed. */
const items = (lines: ReadonlyArray<string>): Array<string> =>
  lines.map((line) => pythonStrip(line).replace(listMarker, "")).filter((item) => item.length > 0)

/** The first line (trimmed) as the title when it is not empty, and the lines after it. */
const titleAndRest = (rest: string): { readonly title: string; readonly lines: ReadonlyArray<string> } => {
  const lines = pythonLines(rest)
  if (lines.length > 0 && lines[0] !== "") return { title: pythonStrip(lines[0]!), lines: lines.slice(1) }
  return { title: "", lines }
}

/**
 * The widget a message's (stored) content makes, as its first submessage's
 * content; undefined when the content is no widget command.
 *
 * @category constructors
 */
export const widgetContent = (content: string): string | undefined => {
  const match = firstSpace.exec(content)
  const command = match === null ? content : content.slice(0, match.index)
  if (command !== "/poll" && command !== "/todo") return undefined
  const { lines, title } = titleAndRest(content.slice(command.length))
  if (command === "/poll") {
    return pythonJson({ widget_type: "poll", extra_data: { question: title, options: items(lines) } })
  }
  const tasks = items(lines).map((item) => {
    const at = item.indexOf(": ")
    return at === -1
      ? { task: pythonStrip(item), desc: "" }
      : { task: pythonStrip(item.slice(0, at)), desc: pythonStrip(item.slice(at + 2)) }
  })
  return pythonJson({ widget_type: "todo", extra_data: { task_list_title: title, tasks } })
}


const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

/**
 * Parses a submessage's content as JSON; undefined when it is not JSON.
 * Numbers written with a fraction or exponent stay floats (Python's view),
 * so that `1.0` is not taken for the integer 1; a lone surrogate (`"\ud800"`)
 * is not JSON, as for Python.
 *
 * @category parsing
 */
export const parseSubmessageContent = (content: string): { readonly value: unknown } | undefined => {
  try {
    return {
      value: JSON.parse(content, function(key, value, context?: { readonly source?: string }) {
        // Python's JSON parser refuses escaped lone surrogates, in keys and in strings.
        if (loneSurrogate.test(key) || (typeof value === "string" && loneSurrogate.test(value))) {
          throw new SyntaxError("lone surrogate")
        }
        return typeof value === "number" && context?.source !== undefined && /[.eE]/.test(context.source)
          ? new JsonFloat(value)
          : value
      })
    }
  } catch {
    return undefined
  }
}

/**
 * The type of a message's widget: the `widget_type` of its first "widget"
 * submessage when that is a JSON object with one; undefined otherwise.
 *
 * @category predicates
 */
export const widgetTypeOf = (submessages: ReadonlyArray<Submessage>): unknown => {
  const first = submessages.find((s) => s.msg_type === WidgetMsgType)
  if (first === undefined) return undefined
  const parsed = parseSubmessageContent(first.content)
  const data = parsed?.value
  if (data === null || typeof data !== "object" || Array.isArray(data) || data instanceof JsonFloat) return undefined
  return (data as Record<string, unknown>).widget_type
}

type Check = (name: string, value: unknown) => string | undefined

const isDict = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof JsonFloat)

// Python's bool is an int: `true` passes an integer check as 1.
const asInt = (v: unknown): number | undefined =>
  typeof v === "boolean" ? Number(v) : typeof v === "number" && Number.isInteger(v) ? v : undefined

const string: Check = (name, v) => typeof v === "string" ? undefined : `${name} is not a string`
const bool: Check = (name, v) => typeof v === "boolean" ? undefined : `${name} is not a boolean`
const intIn = (allowed: ReadonlyArray<number>): Check => (name, v) => {
  const n = asInt(v)
  if (n === undefined) return `${name} is not an integer`
  return allowed.includes(n) ? undefined : `Invalid ${name}`
}
const intRange = (low: number, high: number): Check => (name, v) => {
  const n = asInt(v)
  if (n === undefined) return `${name} is not an integer`
  if (n < low) return `${name} is too small`
  if (n > high) return `${name} is too large`
  return undefined
}

/** Zulip's `check_dict_only`: every key present and valid, in order, and no other key. */
const dictOnly = (name: string, data: Record<string, unknown>, keys: ReadonlyArray<readonly [string, Check]>) => {
  for (const [key, check] of keys) {
    if (!(key in data)) return `${key} key is missing from ${name}`
    const failed = check(`${name}["${key}"]`, data[key])
    if (failed !== undefined) return failed
  }
  const known = new Set(keys.map(([key]) => key))
  const extra = Object.keys(data).filter((key) => !known.has(key))
  return extra.length === 0 ? undefined : `Unexpected arguments: ${extra.join(", ")}`
}

/** The data a widget type accepts, by its `type` field; `authorOnly` types need the widget's author. */
const widgetData: Record<string, {
  readonly name: string
  readonly types: Record<string, { readonly keys: ReadonlyArray<readonly [string, Check]>; readonly authorOnly?: string }>
}> = {
  poll: {
    name: "poll data",
    types: {
      vote: { keys: [["type", string], ["key", string], ["vote", intIn([1, -1])]] },
      question: {
        keys: [["type", string], ["question", string]],
        authorOnly: "You can't edit a question unless you are the author."
      },
      new_option: { keys: [["type", string], ["option", string], ["idx", intRange(0, MaxWidgetIndex)]] }
    }
  },
  todo: {
    name: "todo data",
    types: {
      new_task: {
        keys: [["type", string], ["key", intRange(0, MaxWidgetIndex)], ["task", string], ["desc", string], [
          "completed",
          bool
        ]]
      },
      strike: { keys: [["type", string], ["key", string]] },
      new_task_list_title: {
        keys: [["type", string], ["title", string]],
        authorOnly: "You can't edit the task list title unless you are the author."
      }
    }
  }
}

/**
 * Checks a submessage's parsed data against its message's widget type
 * (Zulip's poll and todo validators); returns Zulip's message when it is
 * refused. Data for messages of any other widget type is not checked.
 *
 * @category validation
 */
export const checkWidgetData = (widgetType: unknown, data: unknown, isWidgetAuthor: boolean): string | undefined => {
  if (widgetType !== "poll" && widgetType !== "todo") return undefined
  const { name, types } = widgetData[widgetType]!
  if (!isDict(data)) return `${name} is not a dict`
  if (!("type" in data)) return `type key is missing from ${name}`
  const type = data.type
  if (typeof type !== "string") return `${name}["type"] is not a string`
  const spec = Object.hasOwn(types, type) ? types[type] : undefined
  if (spec === undefined) return `Unknown type for ${name}: ${type}`
  if (spec.authorOnly !== undefined && !isWidgetAuthor) return spec.authorOnly
  return dictOnly(name, data, spec.keys)
}

/** Why POST /messages's `widget_content` is refused: not JSON. @category constants */
export const WidgetContentNotJson = "Widgets: API programmer sent invalid JSON content"

/** Zulip's `check_widget_content`: its message when the parsed content is refused. */
const widgetContentRefusal = (content: unknown): string | undefined => {
  if (!isDict(content)) return "widget_content is not a dict"
  if (!("widget_type" in content)) return "widget_type is not in widget_content"
  if (!("extra_data" in content)) return "extra_data is not in widget_content"
  const widgetType = content.widget_type
  const extra = content.extra_data
  if (!isDict(extra)) return "extra_data is not a dict"
  if (widgetType !== "zform") return `unknown widget type: ${pythonText(widgetType)}`
  if (!("type" in extra)) return "zform is missing type field"
  if (extra.type !== "choices") return `unknown zform type: ${pythonText(extra.type)}`
  // Zulip's `check_dict`: the keys in order, others allowed.
  if (!("heading" in extra)) return "heading key is missing from extra_data"
  if (typeof extra.heading !== "string") return `extra_data["heading"] is not a string`
  if (!("choices" in extra)) return "choices key is missing from extra_data"
  const choices = extra.choices
  if (!Array.isArray(choices)) return `extra_data["choices"] is not a list`
  for (const [i, choice] of choices.entries()) {
    const name = `extra_data["choices"][${i}]`
    if (!isDict(choice)) return `${name} is not a dict`
    for (const key of ["short_name", "long_name", "reply"]) {
      if (!(key in choice)) return `${key} key is missing from ${name}`
      if (typeof choice[key] !== "string") return `${name}["${key}"] is not a string`
    }
  }
  return undefined
}

/** A value inside a message text, as Python's `str` would show a string (others as JSON). */
const pythonText = (value: unknown): string => typeof value === "string" ? value : pythonJson(value)

/**
 * POST /messages's undocumented `widget_content` (what the `zulip_bots`
 * runner sends, a zform of choices): the content of the message's widget
 * submessage, built as Zulip stores it (`json.dumps` of its `widget_type`
 * and `extra_data`), or Zulip's refusal ("Widgets: ...").
 *
 * @category validation
 */
export const widgetFromContent = (
  text: string
): { readonly content: string } | { readonly refusal: string } => {
  const parsed = parseSubmessageContent(text)
  if (parsed === undefined) return { refusal: WidgetContentNotJson }
  const refusal = widgetContentRefusal(parsed.value)
  if (refusal !== undefined) return { refusal: `Widgets: ${refusal}` }
  const { extra_data, widget_type } = parsed.value as Record<string, unknown>
  return { content: pythonJson({ widget_type, extra_data }) }
}
