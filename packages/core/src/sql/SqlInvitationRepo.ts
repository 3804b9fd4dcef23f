/**
 * The reusable invitation links on SQL (`multiuse_invites`).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import { fromRow } from "../domain/Ids.ts"
import type { InvitationId, RealmId, UserId } from "../domain/Ids.ts"
import { keyHash } from "../domain/Invitation.ts"
import type { Invitation } from "../domain/Invitation.ts"
import type { Role } from "../domain/Role.ts"
import { InvitationRepo } from "../ports/InvitationRepo.ts"
import type { Insert } from "../ports/Repositories.ts"

type Row = Readonly<Record<string, unknown>>

const json = (value: unknown): ReadonlyArray<number> =>
  (typeof value === "string" ? JSON.parse(value) : value) as ReadonlyArray<number>
const bool = (value: unknown): boolean => value === true || value === "t" || value === 1

const decode = (row: Row): Invitation => ({
  id: fromRow.invitationId(Number(row.id)),
  realm_id: fromRow.realmId(Number(row.realm_id)),
  referrer_id: fromRow.userId(Number(row.referrer_id)),
  key: String(row.key),
  invited_as: Number(row.invited_as) as Role,
  stream_ids: json(row.stream_ids).map((id) => fromRow.channelId(Number(id))),
  group_ids: json(row.group_ids).map((id) => fromRow.groupId(Number(id))),
  include_realm_default_subscriptions: bool(row.include_realm_default_subscriptions),
  welcome_message_custom_text: row.welcome_message_custom_text === null || row.welcome_message_custom_text === undefined
    ? null
    : String(row.welcome_message_custom_text),
  created: Number(row.created),
  expires: row.expires === null || row.expires === undefined ? null : Number(row.expires),
  revoked: bool(row.revoked)
})

/** @category layers */
export const layer: Layer.Layer<InvitationRepo, never, SqlClient.SqlClient> = Layer.effect(
  InvitationRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return InvitationRepo.of({
      insert: Effect.fn("InvitationRepo.insert")(function*(invitation: Insert<Invitation>) {
        const rows = yield* sql<Row>`
          INSERT INTO multiuse_invites (realm_id, referrer_id, key, key_hash, invited_as, stream_ids, group_ids,
            include_realm_default_subscriptions, welcome_message_custom_text, created, expires, revoked)
          VALUES (${invitation.realm_id}, ${invitation.referrer_id}, ${invitation.key}, ${keyHash(invitation.key)},
            ${invitation.invited_as}, ${JSON.stringify(invitation.stream_ids)}::jsonb, ${JSON.stringify(invitation.group_ids)}::jsonb,
            ${invitation.include_realm_default_subscriptions}, ${invitation.welcome_message_custom_text},
            ${invitation.created}, ${invitation.expires}, ${invitation.revoked})
          RETURNING *`
        return decode(rows[0]!)
      }, Effect.orDie),
      findById: Effect.fn("InvitationRepo.findById")(function*(id: InvitationId) {
        const rows = yield* sql<Row>`SELECT * FROM multiuse_invites WHERE id = ${id}`
        return rows.length === 0 ? undefined : decode(rows[0]!)
      }, Effect.orDie),
      findByIdForUpdate: Effect.fn("InvitationRepo.findByIdForUpdate")(function*(id: InvitationId) {
        const rows = yield* sql<Row>`SELECT * FROM multiuse_invites WHERE id = ${id} FOR UPDATE`
        return rows.length === 0 ? undefined : decode(rows[0]!)
      }, Effect.orDie),
      findByKeyHash: Effect.fn("InvitationRepo.findByKeyHash")(function*(hash: string) {
        const rows = yield* sql<Row>`SELECT * FROM multiuse_invites WHERE key_hash = ${hash}`
        return rows.length === 0 ? undefined : decode(rows[0]!)
      }, Effect.orDie),
      listByRealm: Effect.fn("InvitationRepo.listByRealm")(function*(realmId: RealmId) {
        const rows = yield* sql<Row>`SELECT * FROM multiuse_invites WHERE realm_id = ${realmId} ORDER BY id`
        return rows.map(decode)
      }, Effect.orDie),
      revoke: Effect.fn("InvitationRepo.revoke")(function*(id: InvitationId) {
        yield* sql`UPDATE multiuse_invites SET revoked = TRUE WHERE id = ${id}`
      }, Effect.orDie),
      expireByReferrer: Effect.fn("InvitationRepo.expireByReferrer")(function*(realmId: RealmId, referrerId: UserId, expires: number) {
        const rows = yield* sql<Row>`
          UPDATE multiuse_invites SET expires = ${expires}
          WHERE realm_id = ${realmId} AND referrer_id = ${referrerId} AND NOT revoked AND (expires IS NULL OR expires > ${expires})
          RETURNING id`
        return rows.length
      }, Effect.orDie)
    })
  })
)
