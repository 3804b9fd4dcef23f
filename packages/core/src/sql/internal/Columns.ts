/**
 * Column decoding for the SQL repositories. Drivers differ in how they hand
 * back BIGINT (bigint or number), so every numeric column goes through
 * Number; JSONB may arrive parsed or as text.
 *
 * @internal
 */

/** A row as the driver hands it back. */
export type Row = Readonly<Record<string, unknown>>

export const int = (value: unknown): number => Number(value)
export const intOrNull = (value: unknown): number | null => value === null || value === undefined ? null : Number(value)
export const idOrNull = <I>(value: unknown, id: (n: number) => I): I | null =>
  value === null || value === undefined ? null : id(Number(value))
export const bool = (value: unknown): boolean => value === true || value === "t" || value === 1
export const boolOrNull = (value: unknown): boolean | null => value === null || value === undefined ? null : bool(value)
export const str = (value: unknown): string => String(value)
export const strOrNull = (value: unknown): string | null => value === null || value === undefined ? null : String(value)
export const json = <A>(value: unknown): A => (typeof value === "string" ? JSON.parse(value) : value) as A
/** A JSONB column's value, as the text it is written as. */
export const jsonText = (value: unknown): string => JSON.stringify(value)

export const first = <A>(rows: ReadonlyArray<A>): A | undefined => rows[0]
