/**
 * The SQL statements an effect runs, counted from the spans effect's SQL
 * client makes (one per statement, with its text in `db.query.text`).
 */
import * as Effect from "effect/Effect"
import * as Tracer from "effect/Tracer"

/** `self`, with the text of every SQL statement it ran (whitespace collapsed). */
export const statementsOf = <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const spans: Array<Tracer.NativeSpan> = []
    const tracer = Tracer.make({
      span(options) {
        const span = new Tracer.NativeSpan(options)
        spans.push(span)
        return span
      }
    })
    const result = yield* Effect.withTracer(self, tracer)
    const statements = spans.flatMap((span) => {
      const text = span.attributes.get("db.query.text")
      return typeof text === "string" ? [text.replace(/\s+/g, " ").trim()] : []
    })
    return { result, statements }
  })
