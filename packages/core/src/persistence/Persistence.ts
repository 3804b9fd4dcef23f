/**
 * The whole persistence stack as one layer: the five repositories and the
 * Transactor, in memory or on SQL (PostgreSQL or PGlite, migrated on build).
 *
 * @since 0.1.0
 */
import * as Layer from "effect/Layer"
import type * as SqlClient from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import type { MigrationError } from "effect/sql/Migrator"
import * as Migrations from "../sql/Migrations.ts"
import * as PgClientLayer from "../sql/PgClientLayer.ts"
import { PgliteClient } from "../sql/PgliteClient.ts"
import { MemoryDatabase } from "./MemoryDatabase.ts"
import * as MemoryRepositories from "./MemoryRepositories.ts"
import type {
  AlertWordRepo,
  ChannelRepo,
  GroupRepo,
  MessageRepo,
  RealmRepo,
  SubscriptionRepo,
  UserRepo,
  UserSettingsRepo
} from "./Repositories.ts"
import { Events } from "../events/Events.ts"
import * as EventStore from "../events/EventStore.ts"
import * as ScheduledMessageRepo from "./ScheduledMessageRepo.ts"
import * as SqlRepositories from "./SqlRepositories.ts"
import { MessageSearch } from "../narrow/MessageSearch.ts"
import { AccessCache } from "./AccessCache.ts"
import { Transactor } from "./Transactor.ts"

/**
 * Everything the persistence layer provides: the repositories, the
 * Transactor, the event log (EventStore) and the publisher every service
 * emits events through (Events).
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
  | ScheduledMessageRepo.ScheduledMessageRepo
  | MessageRepo
  | MessageSearch
  | Transactor
  | EventStore.EventStore
  | Events

/**
 * Memory repositories and the memory Transactor over one fresh
 * MemoryDatabase per build.
 *
 * @category layers
 */
export const layerMemory: Layer.Layer<Persistence> = Events.layer.pipe(
  Layer.provideMerge(EventStore.layerMemory),
  Layer.provideMerge(Layer.mergeAll(MemoryRepositories.layer, ScheduledMessageRepo.layerMemory, MessageSearch.layerMemory, Transactor.layerMemory)),
  Layer.provide(MemoryDatabase.layer)
)

/**
 * SQL repositories and the SQL Transactor over the provided SqlClient; the
 * pending migrations run first.
 *
 * @category layers
 */
export const layerSql: Layer.Layer<Persistence, MigrationError | SqlError, SqlClient.SqlClient> = Events.layer.pipe(
  Layer.provideMerge(Layer.mergeAll(SqlRepositories.layer, ScheduledMessageRepo.layerSql, MessageSearch.layerSql, AccessCache.layerSql, Transactor.layerSql, EventStore.layerSql)),
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
): Layer.Layer<Persistence | PgliteClient | SqlClient.SqlClient, MigrationError | SqlError> =>
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
): Layer.Layer<Persistence | SqlClient.SqlClient, MigrationError | SqlError> =>
  layerSql.pipe(Layer.provideMerge(PgClientLayer.layer(url, options)))
