/**
 * `<time:...>` global times. The server accepts anything its date parser
 * reads; here ISO 8601 dates (with or without time and offset; no offset
 * means UTC) and Unix seconds are understood, and other input gets the same
 * `timestamp-error` markup the server uses for input it cannot read.
 *
 * @internal
 */
import { escapeText } from "./html.ts"
import type { InlineRule } from "./inlineRules.ts"
import { matchHere, pushHtml } from "./inlineRules.ts"

const timePattern = /<time:([^>]*?)>/y
const isoPattern =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i

/** The instant in milliseconds and the microseconds below it, or undefined. */
const parseTime = (input: string): { readonly millis: number; readonly micros: number } | undefined => {
  const text = input.trim()
  if (/^-?\d+(?:\.\d+)?$/.test(text)) {
    const seconds = Number(text)
    const micros = Math.round(seconds * 1_000_000)
    return Number.isFinite(seconds) ? { millis: Math.floor(micros / 1000), micros: ((micros % 1000) + 1000) % 1000 } : undefined
  }
  const m = isoPattern.exec(text)
  if (m === null) return undefined
  const [, y, mo, d, h = "0", mi = "0", s = "0", fraction = "", zone] = m
  const fractionMicros = Number(fraction.padEnd(6, "0") || "0")
  let millis = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s))
  const check = new Date(millis)
  if (check.getUTCMonth() !== Number(mo) - 1 || check.getUTCDate() !== Number(d) || Number(h) > 23) return undefined
  if (zone !== undefined && zone.toUpperCase() !== "Z") {
    const sign = zone.startsWith("-") ? -1 : 1
    const digits = zone.slice(1).replace(":", "")
    millis -= sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || "0")) * 60_000
  }
  return { millis: millis + Math.floor(fractionMicros / 1000), micros: fractionMicros % 1000 }
}

/** Python's `isoformat()` in UTC with `Z`: seconds, microseconds only when present. */
const isoformat = ({ millis, micros }: { readonly millis: number; readonly micros: number }): string => {
  const iso = new Date(millis).toISOString()
  const fraction = (millis % 1000 + 1000) % 1000 * 1000 + micros
  return `${iso.slice(0, 19)}${fraction === 0 ? "" : `.${String(fraction).padStart(6, "0")}`}Z`
}

export const timestampRule: InlineRule = (state, silent) => {
  if (state.src.charCodeAt(state.pos) !== 0x3c) return false
  const match = matchHere(timePattern, state)
  if (match === null) return false
  if (!silent) {
    const input = match[1]!
    const time = parseTime(input)
    const valid = time !== undefined && Number.isFinite(time.millis) && !Number.isNaN(new Date(time.millis).getTime())
    pushHtml(
      state,
      valid
        ? `<time datetime="${isoformat(time)}">${escapeText(input)}</time>`
        : `<span class="timestamp-error">Invalid time format: ${escapeText(input)}</span>`
    )
  }
  state.pos += match[0].length
  return true
}
