/**
 * The reusable invitation links in memory.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { invitationId } from "../domain/Ids.ts"
import { keyHash } from "../domain/Invitation.ts"
import { InvitationRepo } from "../ports/InvitationRepo.ts"
import { MemoryDatabase } from "./MemoryDatabase.ts"

/** @category layers */
export const layer: Layer.Layer<InvitationRepo, never, MemoryDatabase> = Layer.effect(
  InvitationRepo,
  MemoryDatabase.useSync((db) =>
    InvitationRepo.of({
      insert: (input) =>
        Effect.sync(() => {
          const invitation = { ...input, id: invitationId(db.nextId("invitations")) }
          db.tables.invitations.set(invitation.id, invitation)
          return invitation
        }),
      findById: (id) => Effect.sync(() => db.tables.invitations.get(id)),
      // One writer at a time: reads in a transaction are current already.
      findByIdForUpdate: (id) => Effect.sync(() => db.tables.invitations.get(id)),
      findByKeyHash: (hash) =>
        Effect.sync(() => [...db.tables.invitations.values()].find((invitation) => keyHash(invitation.key) === hash)),
      listByRealm: (realmId) =>
        Effect.sync(() =>
          [...db.tables.invitations.values()].filter((invitation) => invitation.realm_id === realmId).sort((a, b) => a.id - b.id)
        ),
      revoke: (id) =>
        Effect.sync(() => {
          const invitation = db.tables.invitations.get(id)
          if (invitation !== undefined) db.tables.invitations.set(id, { ...invitation, revoked: true })
        }),
      expireByReferrer: (realmId, referrerId, expires) =>
        Effect.sync(() => {
          const ended = [...db.tables.invitations.values()].filter((invitation) =>
            invitation.realm_id === realmId && invitation.referrer_id === referrerId && !invitation.revoked &&
            (invitation.expires === null || invitation.expires > expires)
          )
          for (const invitation of ended) db.tables.invitations.set(invitation.id, { ...invitation, expires })
          return ended.length
        })
    })
  )
)
