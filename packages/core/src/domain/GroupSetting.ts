/**
 * The group-setting value that every group-based permission holds: either the
 * id of a named user group, or an anonymous group given by its direct members
 * and direct subgroups.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { GroupId, UserId } from "./Ids.ts"

/** @category models */
export const AnonymousGroup = Schema.Struct({
  direct_members: Schema.Array(UserId),
  direct_subgroups: Schema.Array(GroupId)
})
/** @category models */
export type AnonymousGroup = typeof AnonymousGroup.Type

/** @category models */
export const GroupSettingValue = Schema.Union([GroupId, AnonymousGroup])
/** @category models */
export type GroupSettingValue = typeof GroupSettingValue.Type

/** @category predicates */
export const isNamed = (value: GroupSettingValue): value is GroupId => typeof value === "number"

const sortedUnique = <A extends number>(values: ReadonlyArray<A>): Array<A> =>
  Array.from(new Set(values)).sort((a, b) => a - b)

/**
 * The canonical form: members and subgroups sorted without duplicates, and an
 * anonymous group with no members and a single subgroup collapsed to that
 * group's id (Zulip stores and reports it that way). Idempotent.
 *
 * @category normalisation
 */
export const normalize = (value: GroupSettingValue): GroupSettingValue => {
  if (isNamed(value)) return value
  const direct_members = sortedUnique(value.direct_members)
  const direct_subgroups = sortedUnique(value.direct_subgroups)
  if (direct_members.length === 0 && direct_subgroups.length === 1) return direct_subgroups[0]!
  return { direct_members, direct_subgroups }
}

/**
 * Equality of two values as sets (the order of members does not matter).
 *
 * @category predicates
 */
export const equivalent = (a: GroupSettingValue, b: GroupSettingValue): boolean => {
  const x = normalize(a)
  const y = normalize(b)
  if (isNamed(x) || isNamed(y)) return x === y
  return x.direct_members.join(",") === y.direct_members.join(",") &&
    x.direct_subgroups.join(",") === y.direct_subgroups.join(",")
}
