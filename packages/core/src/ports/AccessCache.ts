/**
 * One read of each organization's access state (users, groups, channels,
 * subscriptions) kept between requests, valid while the
 * organization's access version (bumped by triggers on every write to those
 * tables, see migration `0006_access_versions`) stays the same. Checking the
 * version is one indexed single-row read instead of loading the whole
 * organization on every message sent or read.
 *
 * On SQL the version need not even be read: outside a transaction the last
 * version read stands until the database's `teamchat_access` notice for the
 * organization (migration `0018_access_change_notices_everywhere`), which
 * every process listening hears as the changing transaction commits, or
 * until this process commits a write to what access decisions read
 * (`changed`, called by the SQL repositories), whichever comes first. So a
 * process that answered a write never answers from the read before it, and
 * the others stop doing so as soon as the notice reaches them. While a
 * PostgreSQL process does not listen (before its first LISTEN is
 * confirmed, and from a lost connection until it listens again) it reads
 * the version on every request, and it forgets every kept version when it
 * listens again: notices sent meanwhile are lost. Inside a transaction the
 * version is always read, as the transaction's own writes move it before
 * they commit.
 *
 * On PostgreSQL, when the version is read, GET and POST /messages skip
 * that round trip: authentication answers from the kept read unchecked
 * (the principal's access is `unverified`); the search's first statement
 * reports the version at its own snapshot, and a send's one statement
 * writes only while the version is still the read's. Versions come from a
 * sequence, so an equal version means nothing changed since the kept read;
 * otherwise the request is authenticated again, checked, and answered
 * afresh (nothing was written in between).
 *
 * The SQL implementation is `sql/SqlAccessCache.ts`; the memory one,
 * `memory/MemoryAccessCache.ts`, keeps the version as a row of its tables,
 * moved by the memory repositories' writes.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { AccessRead } from "../domain/AccessState.ts"
import type { RealmId } from "../domain/Ids.ts"
import type { LruMap } from "../domain/LruMap.ts"

/** @category services */
export class AccessCache extends Context.Service<AccessCache, {
  /** The organization's current access version; null when it has none yet (nothing is cached then). */
  readonly version: (realmId: RealmId) => Effect.Effect<number | null>
  /**
   * The version as the database has it now, read whatever this process
   * keeps; a kept version that differs is dropped, so the next requests
   * read the organization again. For a refusal made from a kept read: a
   * notice of another process's change may still be on its way (a client
   * that created a channel through one worker and sends to it through
   * another), and a refusal is checked against the database before it
   * stands.
   */
  readonly verify: (realmId: RealmId) => Effect.Effect<number | null>
  /**
   * The last read per organization, with the version it was read at, for
   * the `keptOrganizations` most recently used organizations: an evicted
   * one is read again by its next request.
   */
  readonly entries: LruMap<RealmId, AccessRead>
  /**
   * Whether reading the version costs a statement of its own (PostgreSQL):
   * then a request whose first statement can report the version itself
   * (GET /messages, `SearchQuery.reportAccessVersion`; POST /messages,
   * `MessageStore.send`'s `accessVersion`) may be authenticated
   * from the kept read without that statement, and checks it there.
   */
  readonly deferrable: boolean
  /**
   * The current transaction writes what access decisions of the
   * organization read (`undefined`: of some organization): once it commits
   * (now, outside one), this process answers from no kept read of it
   * without reading the version again. Rolled back, it changes nothing.
   */
  readonly changed: (realmId: RealmId | undefined) => Effect.Effect<void>
}>()("teamchat/core/ports/AccessCache") {}

/**
 * Organizations whose access read is kept (docs/memory.md): each read holds
 * the organization's users, groups, channels and subscriptions.
 *
 * @category constants
 */
export const keptOrganizations = 64

/**
 * A request authenticated from a kept read (`Principal.access.unverified`)
 * found the organization's access version moved: it is to be authenticated
 * again and answered afresh. Never an answer of its own.
 *
 * @category errors
 */
export class StaleAccess extends Schema.TaggedError<StaleAccess>()("StaleAccess", {}) {}
