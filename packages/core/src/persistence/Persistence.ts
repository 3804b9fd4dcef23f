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
import type { ChannelRepo, GroupRepo, RealmRepo, SubscriptionRepo, UserRepo } from "./Repositories.ts"
import * as SqlRepositories from "./SqlRepositories.ts"
import { Transactor } from "./Transactor.ts"

/** Everything the persistence layer provides. @category models */
export type Persistence = RealmRepo | UserRepo | GroupRepo | ChannelRepo | SubscriptionRepo | Transactor

/**
 * Memory repositories and the memory Transactor over one fresh
 * MemoryDatabase per build.
 *
 * @category layers
 */
export const layerMemory: Layer.Layer<Persistence> = Layer.mergeAll(
  MemoryRepositories.layer,
  Transactor.layerMemory
).pipe(Layer.provide(MemoryDatabase.layer))

/**
 * SQL repositories and the SQL Transactor over the provided SqlClient; the
 * pending migrations run first.
 *
 * @category layers
 */
export const layerSql: Layer.Layer<Persistence, MigrationError | SqlError, SqlClient.SqlClient> = Layer.mergeAll(
  SqlRepositories.layer,
  Transactor.layerSql
).pipe(Layer.provide(Migrations.layer))

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
