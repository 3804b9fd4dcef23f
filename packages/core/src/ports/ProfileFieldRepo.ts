/**
 * The custom profile field store (port): the organization's field
 * definitions and users' values. Its implementations,
 * `memory/MemoryProfileFieldRepo.ts` and `sql/SqlProfileFieldRepo.ts`, give
 * the same observable results.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { CustomProfileField, ProfileFieldValue } from "../domain/CustomProfileField.ts"
import type { ProfileFieldId, RealmId, UserId } from "../domain/Ids.ts"
import type { Insert } from "./Repositories.ts"

/** @category services */
export class ProfileFieldRepo extends Context.Service<ProfileFieldRepo, {
  /** `make` receives the new id (a new field's `order` is its id). */
  insert(make: (id: ProfileFieldId) => Insert<CustomProfileField>): Effect.Effect<CustomProfileField>
  update(field: CustomProfileField): Effect.Effect<void>
  /** Deletes the field and every value of it. */
  delete(id: ProfileFieldId): Effect.Effect<void>
  findById(id: ProfileFieldId): Effect.Effect<CustomProfileField | undefined>
  /** The organization's fields by `order`, then id. */
  listByRealm(realmId: RealmId): Effect.Effect<ReadonlyArray<CustomProfileField>>
  /** Every value of the organization's users, by user id then field order. */
  valuesByRealm(realmId: RealmId): Effect.Effect<ReadonlyArray<ProfileFieldValue>>
  /** One user's values, by field order. */
  valuesByUser(userId: UserId): Effect.Effect<ReadonlyArray<ProfileFieldValue>>
  /** Inserts or replaces the value of (field_id, user_id). */
  setValue(value: ProfileFieldValue): Effect.Effect<void>
  removeValue(fieldId: ProfileFieldId, userId: UserId): Effect.Effect<void>
  /**
   * Serialises the organization's field definitions until the current
   * transaction ends: `"definitions"` for a change of them (exclusive, so
   * the summary limit and unique labels checked still hold at the commit),
   * `"values"` for writing users' values (shared, so the fields a value
   * names cannot go before it is written). Taken before the rows it guards.
   * A no-op where transactions already run one at a time.
   */
  lockFields(realmId: RealmId, purpose: "definitions" | "values"): Effect.Effect<void>
  /** Removes a field's values that are not among `keep` (option keys that still exist). */
  removeValuesExcept(fieldId: ProfileFieldId, keep: ReadonlyArray<string>): Effect.Effect<void>
}>()("teamchat/core/ports/ProfileFieldRepo") {}
