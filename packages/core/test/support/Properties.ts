/**
 * The seed of every property test, and a check that counts the samples that
 * reached its assertion.
 *
 * The seed is fixed, so a run is repeatable and a red run can be replayed;
 * `TEAMCHAT_PROPERTY_SEED=<integer>` runs the same properties over other
 * samples. It is printed once per test file that uses it.
 */
import { assert } from "@effect/vitest"
import * as Arbitrary from "effect/Arbitrary"
import * as Effect from "effect/Effect"

const defaultSeed = 20240611

const seedFromEnvironment = (raw: string | undefined): number => {
  if (raw === undefined || raw.trim() === "") return defaultSeed
  const seed = Number(raw)
  if (!Number.isSafeInteger(seed)) throw new Error(`TEAMCHAT_PROPERTY_SEED must be an integer, not ${JSON.stringify(raw)}`)
  return seed
}

export const propertySeed: number = seedFromEnvironment(process.env.TEAMCHAT_PROPERTY_SEED)

console.log(`property tests: seed ${propertySeed} (TEAMCHAT_PROPERTY_SEED overrides it)`)

/** `it.prop` options: `runs` samples from the shared seed. */
export const propertyOptions = (runs: number) => ({ arbitrary: { runs, seed: propertySeed } })

/** `Arbitrary.checkEffect` options: `runs` samples from the shared seed. */
export const checkOptions = (runs: number) => ({ runs, seed: propertySeed })

/** Fails the test with the shrunk counterexample and its seed when `result` is not a pass. */
export const assertPassed = <A, E>(result: Arbitrary.CheckResult<A, E>): void => {
  const failure = Arbitrary.formatCheckFailure(result)
  if (failure !== undefined) assert.fail(failure)
}

/**
 * Checks `assertion` on `runs` samples of `arbitrary` (a thrown assertion
 * falsifies and is shrunk). `assertion` returns the label of the case it
 * checked; each label in `minimum` must have been reached at least that many
 * times, so a generator that stops producing a case is a failure, not a
 * silent pass.
 */
export const checkReaching = <A, Label extends string>(
  arbitrary: Arbitrary.Arbitrary<A>,
  options: { readonly runs: number; readonly minimum: Readonly<Record<Label, number>> },
  assertion: (value: A) => Label
): Effect.Effect<Readonly<Record<Label, number>>> =>
  Effect.gen(function*() {
    const reached = Object.fromEntries(Object.keys(options.minimum).map((label) => [label, 0])) as Record<Label, number>
    const result = yield* Arbitrary.checkEffect(
      arbitrary,
      (value) =>
        Effect.try({
          try: () => {
            const label = assertion(value)
            reached[label] = (reached[label] ?? 0) + 1
            return true
          },
          catch: (error) => error
        }),
      checkOptions(options.runs)
    )
    assertPassed(result)
    for (const [label, minimum] of Object.entries(options.minimum) as Array<[Label, number]>) {
      assert.isAtLeast(reached[label], minimum, `samples that reached '${label}': ${JSON.stringify(reached)}`)
    }
    return reached
  })

/**
 * `checkReaching` for an effectful assertion that may reach several cases
 * at once: it returns the labels its sample reached (a failed assertion,
 * thrown or failed, falsifies and is shrunk). Each label in `minimum` must
 * have been reached by at least that many samples.
 */
export const checkReachingEffect = <A, Label extends string, R>(
  arbitrary: Arbitrary.Arbitrary<A>,
  options: {
    readonly runs: number
    readonly maxShrinks?: number
    readonly minimum: Readonly<Record<Label, number>>
  },
  assertion: (value: A) => Effect.Effect<ReadonlyArray<string>, unknown, R>
): Effect.Effect<Readonly<Record<string, number>>, never, R> =>
  Effect.gen(function*() {
    const reached: Record<string, number> = Object.fromEntries(Object.keys(options.minimum).map((label) => [label, 0]))
    const result = yield* Arbitrary.checkEffect(
      arbitrary,
      (value) =>
        assertion(value).pipe(
          Effect.catchDefect((defect) => Effect.fail(defect)),
          Effect.map((labels) => {
            for (const label of labels) reached[label] = (reached[label] ?? 0) + 1
            return true
          })
        ),
      { ...checkOptions(options.runs), ...(options.maxShrinks === undefined ? {} : { maxShrinks: options.maxShrinks }) }
    )
    assertPassed(result)
    for (const [label, minimum] of Object.entries(options.minimum) as Array<[Label, number]>) {
      assert.isAtLeast(reached[label]!, minimum, `samples that reached '${label}': ${JSON.stringify(reached)}`)
    }
    return reached
  })
