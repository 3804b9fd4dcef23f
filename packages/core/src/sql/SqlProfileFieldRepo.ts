/**
 * The custom profile field store on SQL (`custom_profile_fields`,
 * `custom_profile_field_values`).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import type { CustomProfileField, ProfileFieldType, ProfileFieldValue } from "../domain/CustomProfileField.ts"
import { fromRow } from "../domain/Ids.ts"
import type { ProfileFieldId, RealmId, UserId } from "../domain/Ids.ts"
import { ProfileFieldRepo } from "../ports/ProfileFieldRepo.ts"

type Row = Readonly<Record<string, unknown>>

const int = (value: unknown): number => Number(value)
const bool = (value: unknown): boolean => value === true || value === "t" || value === 1

const columns = (f: CustomProfileField) => ({
  id: f.id,
  realm_id: f.realm_id,
  name: f.name,
  hint: f.hint,
  type: f.type,
  field_data: f.field_data,
  order: f.order,
  required: f.required,
  editable_by_user: f.editable_by_user,
  display_in_profile_summary: f.display_in_profile_summary
})

const decodeField = (row: Row): CustomProfileField => ({
  id: fromRow.profileFieldId(int(row.id)),
  realm_id: fromRow.realmId(int(row.realm_id)),
  name: String(row.name),
  hint: String(row.hint),
  type: int(row.type) as ProfileFieldType,
  field_data: String(row.field_data),
  order: int(row.order),
  required: bool(row.required),
  editable_by_user: bool(row.editable_by_user),
  display_in_profile_summary: bool(row.display_in_profile_summary)
})

const decodeValue = (row: Row): ProfileFieldValue => ({
  field_id: fromRow.profileFieldId(int(row.field_id)),
  user_id: fromRow.userId(int(row.user_id)),
  value: String(row.value),
  rendered_value: row.rendered_value === null || row.rendered_value === undefined ? null : String(row.rendered_value)
})

const ProfileFieldsLock = 0x63706673 // "cpfs"

/** @category layers */
export const layer: Layer.Layer<ProfileFieldRepo, never, SqlClient.SqlClient> = Layer.effect(
  ProfileFieldRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return ProfileFieldRepo.of({
      insert: Effect.fn("ProfileFieldRepo.insert")(function*(make) {
        // The id first, so the record (whose order is its id) is written whole.
        const [next] = yield* sql<{ id: unknown }>`
          SELECT nextval(pg_get_serial_sequence('custom_profile_fields', 'id')) AS id`
        const id = fromRow.profileFieldId(int(next!.id))
        const field: CustomProfileField = { ...make(id), id }
        yield* sql`INSERT INTO custom_profile_fields ${sql.insert(columns(field))}`
        return field
      }, Effect.orDie),
      update: Effect.fn("ProfileFieldRepo.update")(function*(field: CustomProfileField) {
        const { id: _id, ...rest } = columns(field)
        yield* sql`UPDATE custom_profile_fields SET ${sql.update(rest)} WHERE id = ${field.id}`
      }, Effect.orDie),
      // The two-key advisory lock space, as ChannelRepo.lockNames.
      lockFields: Effect.fn("ProfileFieldRepo.lockFields")(function*(realm: RealmId, purpose: "definitions" | "values") {
        yield* purpose === "definitions"
          ? sql`SELECT pg_advisory_xact_lock(${ProfileFieldsLock}::integer, ${realm}::integer)`
          : sql`SELECT pg_advisory_xact_lock_shared(${ProfileFieldsLock}::integer, ${realm}::integer)`
      }, Effect.orDie),
      delete: Effect.fn("ProfileFieldRepo.delete")(function*(id: ProfileFieldId) {
        yield* sql`DELETE FROM custom_profile_fields WHERE id = ${id}`
      }, Effect.orDie),
      findById: Effect.fn("ProfileFieldRepo.findById")(function*(id: ProfileFieldId) {
        const rows = yield* sql<Row>`SELECT * FROM custom_profile_fields WHERE id = ${id}`
        return rows.length === 0 ? undefined : decodeField(rows[0]!)
      }, Effect.orDie),
      listByRealm: Effect.fn("ProfileFieldRepo.listByRealm")(function*(realmId: RealmId) {
        const rows = yield* sql<Row>`
          SELECT * FROM custom_profile_fields WHERE realm_id = ${realmId} ORDER BY "order", id`
        return rows.map(decodeField)
      }, Effect.orDie),
      valuesByRealm: Effect.fn("ProfileFieldRepo.valuesByRealm")(function*(realmId: RealmId) {
        const rows = yield* sql<Row>`
          SELECT v.* FROM custom_profile_field_values v JOIN custom_profile_fields f ON f.id = v.field_id
          WHERE f.realm_id = ${realmId} ORDER BY v.user_id, f."order", f.id`
        return rows.map(decodeValue)
      }, Effect.orDie),
      valuesByUser: Effect.fn("ProfileFieldRepo.valuesByUser")(function*(userId: UserId) {
        const rows = yield* sql<Row>`
          SELECT v.* FROM custom_profile_field_values v JOIN custom_profile_fields f ON f.id = v.field_id
          WHERE v.user_id = ${userId} ORDER BY f."order", f.id`
        return rows.map(decodeValue)
      }, Effect.orDie),
      setValue: Effect.fn("ProfileFieldRepo.setValue")(function*(value: ProfileFieldValue) {
        yield* sql`
          INSERT INTO custom_profile_field_values ${sql.insert({ ...value })}
          ON CONFLICT (field_id, user_id) DO UPDATE
          SET value = EXCLUDED.value, rendered_value = EXCLUDED.rendered_value`
      }, Effect.orDie),
      removeValue: Effect.fn("ProfileFieldRepo.removeValue")(function*(fieldId: ProfileFieldId, userId: UserId) {
        yield* sql`DELETE FROM custom_profile_field_values WHERE field_id = ${fieldId} AND user_id = ${userId}`
      }, Effect.orDie),
      removeValuesExcept: Effect.fn("ProfileFieldRepo.removeValuesExcept")(function*(
        fieldId: ProfileFieldId,
        keep: ReadonlyArray<string>
      ) {
        yield* sql`
          DELETE FROM custom_profile_field_values
          WHERE field_id = ${fieldId}
            AND value NOT IN (SELECT jsonb_array_elements_text(${JSON.stringify(keep)}::jsonb))`
      }, Effect.orDie)
    })
  })
)
