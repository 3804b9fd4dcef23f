/**
 * The whole persistence stack as one layer: the adapters of every port
 * (repositories, Transactor, message search, event log) and the event
 * publisher over them, in memory (`memory/`) or on SQL (`sql/`: PostgreSQL or
 * PGlite, migrated on build).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Redis from "effect/persistence/Redis"
import type * as SqlClient from "effect/sql/SqlClient"
import type { MigrationError } from "effect/sql/Migrator"
import * as SqlErrors from "effect/sql/SqlError"
import type { SqlError } from "effect/sql/SqlError"
import * as LocalFileStorage from "./files/LocalFileStorage.ts"
import type * as S3FileStorage from "./files/S3FileStorage.ts"
import * as MemoryFileStorage from "./memory/MemoryFileStorage.ts"
import * as MemoryAccessCache from "./memory/MemoryAccessCache.ts"
import * as MemoryAttachmentRepo from "./memory/MemoryAttachmentRepo.ts"
import * as MemoryAuditLogRepo from "./memory/MemoryAuditLogRepo.ts"
import { MemoryDatabase } from "./memory/MemoryDatabase.ts"
import * as MemoryDraftRepo from "./memory/MemoryDraftRepo.ts"
import * as MemoryEventStore from "./memory/MemoryEventStore.ts"
import * as MemoryMessageStore from "./memory/MemoryMessageStore.ts"
import * as MemoryInvitationRepo from "./memory/MemoryInvitationRepo.ts"
import * as MemoryMessageSearch from "./memory/MemoryMessageSearch.ts"
import * as MemoryMutingRepo from "./memory/MemoryMutingRepo.ts"
import * as MemoryPresenceRepo from "./memory/MemoryPresenceRepo.ts"
import * as MemoryPushDeviceRepo from "./memory/MemoryPushDeviceRepo.ts"
import * as MemoryRepositories from "./memory/MemoryRepositories.ts"
import * as MemoryProfileFieldRepo from "./memory/MemoryProfileFieldRepo.ts"
import * as MemorySavedSnippetRepo from "./memory/MemorySavedSnippetRepo.ts"
import * as MemoryScheduledMessageRepo from "./memory/MemoryScheduledMessageRepo.ts"
import * as MemoryRateLimitStore from "./memory/MemoryRateLimitStore.ts"
import * as MemoryTransactor from "./memory/MemoryTransactor.ts"
import * as MemoryUserStatusRepo from "./memory/MemoryUserStatusRepo.ts"
import type { AttachmentRepo } from "./ports/AttachmentRepo.ts"
import type { AuditLogRepo } from "./ports/AuditLogRepo.ts"
import type { DraftRepo } from "./ports/DraftRepo.ts"
import type { EventStore } from "./ports/EventStore.ts"
import type { FileStorage } from "./ports/FileStorage.ts"
import type { InvitationRepo } from "./ports/InvitationRepo.ts"
import type { MessageSearch } from "./ports/MessageSearch.ts"
import type { MessageStore } from "./ports/MessageStore.ts"
import type { MutingRepo } from "./ports/MutingRepo.ts"
import type { PresenceRepo } from "./ports/PresenceRepo.ts"
import type { RateLimitStore } from "./ports/RateLimitStore.ts"
import * as RedisRateLimitStore from "./redis/RedisRateLimitStore.ts"
import type { PushDeviceRepo } from "./ports/PushDeviceRepo.ts"
import type {
  AlertWordRepo,
  ChannelRepo,
  GroupRepo,
  MessageRepo,
  RealmRepo,
  SubscriptionRepo,
  UserRepo,
  UserSettingsRepo
} from "./ports/Repositories.ts"
import type { ProfileFieldRepo } from "./ports/ProfileFieldRepo.ts"
import type { SavedSnippetRepo } from "./ports/SavedSnippetRepo.ts"
import type { ScheduledMessageRepo } from "./ports/ScheduledMessageRepo.ts"
import type { Transactor } from "./ports/Transactor.ts"
import type { UserStatusRepo } from "./ports/UserStatusRepo.ts"
import { Events } from "./services/events/Events.ts"
import * as Migrations from "./sql/Migrations.ts"
import * as PgClientLayer from "./sql/PgClientLayer.ts"
import { PgliteClient } from "./sql/PgliteClient.ts"
import * as SqlAccessCache from "./sql/SqlAccessCache.ts"
import type { AccessNotices } from "./sql/SqlAccessCache.ts"
import * as SqlAttachmentRepo from "./sql/SqlAttachmentRepo.ts"
import * as SqlAuditLogRepo from "./sql/SqlAuditLogRepo.ts"
import * as SqlDraftRepo from "./sql/SqlDraftRepo.ts"
import * as SqlEventStore from "./sql/SqlEventStore.ts"
import * as SqlInvitationRepo from "./sql/SqlInvitationRepo.ts"
import * as SqlMessageSearch from "./sql/SqlMessageSearch.ts"
import * as SqlMessageStore from "./sql/SqlMessageStore.ts"
import * as SqlMutingRepo from "./sql/SqlMutingRepo.ts"
import * as SqlPresenceRepo from "./sql/SqlPresenceRepo.ts"
import * as SqlRateLimitStore from "./sql/SqlRateLimitStore.ts"
import * as SqlPushDeviceRepo from "./sql/SqlPushDeviceRepo.ts"
import * as SqlRepositories from "./sql/SqlRepositories.ts"
import * as SqlProfileFieldRepo from "./sql/SqlProfileFieldRepo.ts"
import * as SqlSavedSnippetRepo from "./sql/SqlSavedSnippetRepo.ts"
import * as SqlScheduledMessageRepo from "./sql/SqlScheduledMessageRepo.ts"
import * as SqlTransactor from "./sql/SqlTransactor.ts"
import * as SqlUserStatusRepo from "./sql/SqlUserStatusRepo.ts"

/**
 * Everything the persistence layer provides: the repositories, the
 * Transactor, the message store (every write to messages), the event log
 * (EventStore) and the publisher every service emits events through
 * (Events).
 *
 * @category models
 */
export type Persistence =
  | RealmRepo
  | UserRepo
  | GroupRepo
  | ChannelRepo
  | SubscriptionRepo
  | UserSettingsRepo
  | AlertWordRepo
  | ScheduledMessageRepo
  | ProfileFieldRepo
  | MessageRepo
  | MessageStore
  | MessageSearch
  | UserStatusRepo
  | MutingRepo
  | PresenceRepo
  | DraftRepo
  | SavedSnippetRepo
  | InvitationRepo
  | PushDeviceRepo
  | AuditLogRepo
  | AttachmentRepo
  | Transactor
  | EventStore
  | Events

/**
 * Memory repositories, the memory Transactor and the memory AccessCache
 * over the provided MemoryDatabase (as `layerSql` over a provided client),
 * for tests that read its tables.
 *
 * @category layers
 */
export const layerMemoryTables: Layer.Layer<Persistence, never, MemoryDatabase> = Events.layer.pipe(
  Layer.provideMerge(MemoryMessageStore.layer),
  Layer.provideMerge(MemoryEventStore.layer),
  Layer.provideMerge(Layer.mergeAll(
    MemoryRepositories.layer,
    MemoryScheduledMessageRepo.layer,
    MemoryProfileFieldRepo.layer,
    MemoryMessageSearch.layer,
    MemoryUserStatusRepo.layer,
    MemoryMutingRepo.layer,
    MemoryPresenceRepo.layer,
    MemoryDraftRepo.layer,
    MemorySavedSnippetRepo.layer,
    MemoryInvitationRepo.layer,
    MemoryPushDeviceRepo.layer,
    MemoryAuditLogRepo.layer,
    MemoryAttachmentRepo.layer,
    MemoryAccessCache.layer
  )),
  // Before the repositories: the presence repository's conditional write takes a transaction of its own.
  Layer.provideMerge(MemoryTransactor.layer)
)

/**
 * Memory repositories, the memory Transactor and the memory AccessCache
 * over one fresh MemoryDatabase per build.
 *
 * @category layers
 */
export const layerMemory: Layer.Layer<Persistence> = layerMemoryTables.pipe(Layer.provide(MemoryDatabase.layer))

/**
 * SQL repositories and the SQL Transactor over the provided SqlClient; the
 * pending migrations run first. `AccessNotices` tells whether this process
 * hears other processes' access changes (see `AccessCache`).
 *
 * @category layers
 */
export const layerSql: Layer.Layer<Persistence | AccessNotices, MigrationError | SqlError, SqlClient.SqlClient> = Events.layer.pipe(
  Layer.provideMerge(SqlMessageStore.layer),
  Layer.provideMerge(SqlEventStore.layer),
  Layer.provideMerge(Layer.mergeAll(
    SqlRepositories.layer,
    SqlScheduledMessageRepo.layer,
    SqlProfileFieldRepo.layer,
    SqlMessageSearch.layer,
    SqlUserStatusRepo.layer,
    SqlMutingRepo.layer,
    SqlPresenceRepo.layer,
    SqlDraftRepo.layer,
    SqlSavedSnippetRepo.layer,
    SqlInvitationRepo.layer,
    SqlPushDeviceRepo.layer,
    SqlAuditLogRepo.layer,
    SqlAttachmentRepo.layer,
    SqlTransactor.layer
  )),
  // Beneath the repositories: their writes to what access decisions read tell it (`AccessCache.changed`).
  Layer.provideMerge(SqlAccessCache.layer),
  Layer.provide(Migrations.layer)
)

/**
 * `layerSql` on an embedded PGlite (in memory when `dataDir` is omitted); the
 * client is exposed too.
 *
 * @category layers
 */
export const layerPglite = (
  dataDir?: string
): Layer.Layer<Persistence | AccessNotices | PgliteClient | SqlClient.SqlClient, MigrationError | SqlError> =>
  layerSql.pipe(Layer.provideMerge(PgliteClient.layer({ dataDir })))

/**
 * `layerSql` on a PostgreSQL server at `url` (`postgres://…`); the client is
 * exposed too.
 *
 * @category layers
 */
export const layerPostgres = (
  url: string,
  options?: PgClientLayer.PgClientOptions
): Layer.Layer<Persistence | AccessNotices | SqlClient.SqlClient, MigrationError | SqlError> =>
  layerSql.pipe(Layer.provideMerge(PgClientLayer.layer(url, options)))

/**
 * Rate-limit windows in this process's memory (one process: the in-memory
 * database, PGlite). Not part of `Persistence`: the HTTP adapter picks a
 * store per deployment.
 *
 * @category layers
 */
export const layerRateLimitsMemory: Layer.Layer<RateLimitStore> = MemoryRateLimitStore.layer

/**
 * Rate-limit windows in the database behind the provided SqlClient (migrated
 * by `layerSql`), shared by every process on it.
 *
 * @category layers
 */
export const layerRateLimitsSql: Layer.Layer<RateLimitStore, never, SqlClient.SqlClient> = SqlRateLimitStore.layer

/**
 * Rate-limit windows in the provided Redis, shared by every process using it.
 *
 * @category layers
 */
export const layerRateLimitsRedis: Layer.Layer<RateLimitStore, never, Redis.Redis> = RedisRateLimitStore.layer

/**
 * `layerRateLimitsRedis` with keys under a deployment's own prefix
 * (`<prefix>ratelimit:…`; the default is "teamchat:"), for deployments that
 * share one Redis but not their limits.
 *
 * @category layers
 */
export const layerRateLimitsRedisWithPrefix = (prefix: string): Layer.Layer<RateLimitStore, never, Redis.Redis> =>
  RedisRateLimitStore.layerWithPrefix(prefix)

/**
 * `layerRateLimitsSql` on a pool of its own to the PostgreSQL server at
 * `url` (whose migrations `layerPostgres` runs), so that counting never waits
 * behind the requests' transactions.
 *
 * @category layers
 */
export const layerRateLimitsPostgres = (
  url: string,
  options: PgClientLayer.PgClientOptions = { maxConnections: 4 }
): Layer.Layer<RateLimitStore, SqlError> => SqlRateLimitStore.layer.pipe(Layer.provide(PgClientLayer.layer(url, options)))

/**
 * Whether a failure (a storage defect, as repositories report them) means
 * the database cannot take the work now rather than that the work is wrong:
 * no connection could be opened in time or the server refused one
 * (connection errors, PostgreSQL's `53300` too many connections, `57P03`
 * cannot connect now). Adapters answer these as "try again later".
 *
 * @category errors
 */
/**
 * Pool settings of a PostgreSQL backend: its size (`maxConnections`) and how
 * long a statement waits for a free connection (`acquireTimeout`).
 *
 * @category models
 */
export type PgPoolOptions = PgClientLayer.PgClientOptions

export const isUnavailable = (defect: unknown): boolean => {
  if (!SqlErrors.isSqlError(defect)) return false
  const reason = defect.reason
  if (reason._tag === "ConnectionError") return true
  const cause = reason.cause as { readonly code?: unknown } | undefined
  return typeof cause === "object" && cause !== null && (cause.code === "53300" || cause.code === "57P03")
}

/**
 * Uploaded files in a local folder (`root`, created when missing): the
 * default store, `<DATA_DIR>/uploads`. One machine only: processes on
 * several machines share files through an object store.
 *
 * @category layers
 */
export const layerFileStorageLocal = (root: string): Layer.Layer<FileStorage> => LocalFileStorage.layer(root)

/**
 * Uploaded files in this process's memory (a fresh store per build): tests
 * and the in-memory database.
 *
 * @category layers
 */
export const layerFileStorageMemory: Layer.Layer<FileStorage> = MemoryFileStorage.layer

/**
 * Uploaded files in a bucket of an S3-compatible object store (the AWS SDK's
 * usual credentials; `endpoint` for a server other than AWS): the store
 * several machines share.
 *
 * @category layers
 */
export const layerFileStorageS3 = (options: S3FileStorage.S3Options): Layer.Layer<FileStorage> =>
  // The AWS SDK is loaded only when it is used.
  Layer.unwrap(Effect.map(Effect.promise(() => import("./files/S3FileStorage.ts")), (s3) => s3.layer(options)))
