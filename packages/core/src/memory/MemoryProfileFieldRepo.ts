/**
 * The custom profile field store in memory.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { CustomProfileField, ProfileFieldValue } from "../domain/CustomProfileField.ts"
import { profileFieldId } from "../domain/Ids.ts"
import { ProfileFieldRepo } from "../ports/ProfileFieldRepo.ts"
import { MemoryDatabase } from "./MemoryDatabase.ts"

const byOrder = (a: CustomProfileField, b: CustomProfileField) => a.order - b.order || a.id - b.id

/** @category layers */
export const layer: Layer.Layer<ProfileFieldRepo, never, MemoryDatabase> = Layer.effect(
  ProfileFieldRepo,
  MemoryDatabase.useSync((db) => {
    const key = (fieldId: number, userId: number) => `${fieldId}:${userId}`
    /** Values in field order (then user id), keeping those `keep` accepts. */
    const values = (keep: (v: ProfileFieldValue) => boolean) => {
      const order = new Map(Array.from(db.tables.profileFields.values()).sort(byOrder).map((f, i) => [f.id as number, i]))
      return Array.from(db.tables.profileFieldValues.values())
        .filter(keep)
        .sort((a, b) => a.user_id - b.user_id || order.get(a.field_id)! - order.get(b.field_id)!)
    }
    return ProfileFieldRepo.of({
      insert: (make) =>
        Effect.sync(() => {
          const id = profileFieldId(db.nextId("profileFields"))
          const field: CustomProfileField = { ...make(id), id }
          db.tables.profileFields.set(id, field)
          return field
        }),
      update: (field) =>
        Effect.sync(() => {
          if (db.tables.profileFields.has(field.id)) db.tables.profileFields.set(field.id, field)
        }),
      lockFields: () => Effect.void,
      delete: (id) =>
        Effect.sync(() => {
          db.tables.profileFields.delete(id)
          for (const [k, v] of db.tables.profileFieldValues) if (v.field_id === id) db.tables.profileFieldValues.delete(k)
        }),
      findById: (id) => Effect.sync(() => db.tables.profileFields.get(id)),
      listByRealm: (realmId) =>
        Effect.sync(() => Array.from(db.tables.profileFields.values()).filter((f) => f.realm_id === realmId).sort(byOrder)),
      valuesByRealm: (realmId) =>
        Effect.sync(() => values((v) => db.tables.profileFields.get(v.field_id)?.realm_id === realmId)),
      valuesByUser: (userId) => Effect.sync(() => values((v) => v.user_id === userId)),
      setValue: (value) => Effect.sync(() => void db.tables.profileFieldValues.set(key(value.field_id, value.user_id), value)),
      removeValue: (fieldId, userId) => Effect.sync(() => void db.tables.profileFieldValues.delete(key(fieldId, userId))),
      removeValuesExcept: (fieldId, keep) =>
        Effect.sync(() => {
          for (const [k, v] of db.tables.profileFieldValues) {
            if (v.field_id === fieldId && !keep.includes(v.value)) db.tables.profileFieldValues.delete(k)
          }
        })
    })
  })
)
