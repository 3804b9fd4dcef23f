/**
 * AuditLog: how services record the changes they make to an organization
 * (Zulip's RealmAuditLog), and how the operator reads them back (the
 * `audit-log` command). See docs/audit-log.md.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { AuditChange, AuditLogEntry, AuditLogEventType } from "../domain/AuditLog.ts"
import type { ChannelId, GroupId, RealmId, UserId } from "../domain/Ids.ts"
import { AuditLogRepo } from "../ports/AuditLogRepo.ts"
import { ChannelRepo, GroupRepo, UserRepo } from "../ports/Repositories.ts"

/** What `list` reads. @category models */
export interface ListOptions {
  /** At most this many rows, the newest. */
  readonly limit: number
  /** Only rows of this type. */
  readonly eventType?: AuditLogEventType | undefined
}

/** What the rows of an organization name, for showing them. @category models */
export interface AuditLogNames {
  /** Users' real addresses. */
  readonly users: ReadonlyMap<UserId, string>
  readonly streams: ReadonlyMap<ChannelId, string>
  readonly groups: ReadonlyMap<GroupId, string>
}

/** @category services */
export class AuditLog extends Context.Service<AuditLog, {
  /**
   * Writes one row per change, in one statement, all made by `actingUserId`
   * (null: the operator or the system) at the Clock's time. Call it inside
   * the change's transaction, beside its writes: a rollback takes the rows
   * with it. Nothing to record writes nothing.
   */
  record(realmId: RealmId, actingUserId: UserId | null, changes: ReadonlyArray<AuditChange>): Effect.Effect<void>
  /** The organization's newest rows, oldest first. */
  list(realmId: RealmId, options: ListOptions): Effect.Effect<ReadonlyArray<AuditLogEntry>>
  /** The organization's users, channels and groups by id, deactivated and archived ones too. */
  names(realmId: RealmId): Effect.Effect<AuditLogNames>
}>()("teamchat/core/services/AuditLog") {
  static readonly layer = Layer.effect(
    AuditLog,
    Effect.gen(function*() {
      const repo = yield* AuditLogRepo
      const users = yield* UserRepo
      const channels = yield* ChannelRepo
      const groups = yield* GroupRepo

      const record = Effect.fn("AuditLog.record")(function*(
        realmId: RealmId,
        actingUserId: UserId | null,
        changes: ReadonlyArray<AuditChange>
      ) {
        if (changes.length === 0) return
        const now = yield* Clock.currentTimeMillis
        yield* repo.insertMany(changes.map((change) => ({
          realm_id: realmId,
          acting_user_id: actingUserId,
          modified_user_id: change.modified_user_id ?? null,
          modified_stream_id: change.modified_stream_id ?? null,
          modified_user_group_id: change.modified_user_group_id ?? null,
          event_type: change.event_type,
          event_time: now,
          extra_data: change.extra_data ?? {}
        })))
      })

      return AuditLog.of({
        record,
        list: (realmId, options) => repo.list(realmId, { limit: options.limit, eventType: options.eventType }),
        names: Effect.fn("AuditLog.names")(function*(realmId: RealmId) {
          const [people, streams, teams] = yield* Effect.all([
            users.listByRealm(realmId),
            channels.listByRealm(realmId),
            groups.listByRealm(realmId)
          ])
          return {
            users: new Map(people.map((u) => [u.id, u.delivery_email])),
            streams: new Map(streams.map((c) => [c.id, c.name])),
            groups: new Map(teams.map((g) => [g.id, g.name]))
          }
        })
      })
    })
  )
}
