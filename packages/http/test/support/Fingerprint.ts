/**
 * What a refused request must leave as it was, each part as JSON: the
 * organizations' records, the demo organization's event log high-water mark
 * (every state change publishes an event) and newest audit log row, users,
 * groups, channels and subscriptions, the bytes of its uploads, plus parts the caller adds (an
 * actor's own rows). The fuzz
 * suite and the authorization matrix compare it before and after a refusal.
 */
import { AttachmentRepo } from "@teamchat/core/ports/AttachmentRepo"
import { AuditLogRepo } from "@teamchat/core/ports/AuditLogRepo"
import { EventStore } from "@teamchat/core/ports/EventStore"
import { ChannelRepo, GroupRepo, RealmRepo, SubscriptionRepo, UserRepo } from "@teamchat/core/ports/Repositories"
import * as Effect from "effect/Effect"
import type { Core } from "./Harness.ts"
import { realmUrl } from "./Harness.ts"

export type Fingerprint = Record<string, string>

export const fingerprint = (
  more: ReadonlyArray<readonly [string, Effect.Effect<unknown, never, Core>]> = []
): Effect.Effect<Fingerprint, never, Core> =>
  Effect.gen(function*() {
    const realms = yield* (yield* RealmRepo).list
    const realm = realms.find((r) => r.url === realmUrl)!
    const parts: Array<readonly [string, Effect.Effect<unknown, never, Core>]> = [
      ["event log", EventStore.use((events) => events.highWaterMark(realm.id))],
      ["audit log", AuditLogRepo.use((audit) => audit.list(realm.id, { limit: 1 }))],
      ["users", UserRepo.use((users) => users.listByRealm(realm.id))],
      ["groups", GroupRepo.use((groups) => groups.listByRealm(realm.id))],
      ["channels", ChannelRepo.use((channels) => channels.listByRealm(realm.id))],
      ["subscriptions", SubscriptionRepo.use((subs) => subs.listByRealm(realm.id))],
      ["upload space", AttachmentRepo.use((attachments) => attachments.spaceUsed(realm.id))],
      ...more
    ]
    const out: Fingerprint = { realms: JSON.stringify(realms) }
    for (const [name, part] of parts) out[name] = JSON.stringify(yield* part)
    return out
  })

/** The parts that differ. */
export const changedParts = (before: Fingerprint, after: Fingerprint): ReadonlyArray<string> =>
  Object.keys(before).filter((key) => before[key] !== after[key])
