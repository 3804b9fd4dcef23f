/**
 * The SQL implementations of the persistence ports in `ports/Repositories.ts`
 * (PostgreSQL dialect; runs on PostgreSQL and PGlite), over the schema in
 * `sql/Migrations.ts`: one file per repository (`SqlRealmRepo.ts`,
 * `SqlUserRepo.ts`, …), composed here.
 *
 * Every observable result matches MemoryRepositories.ts: rows come back by
 * id (subscriptions by channel id then user id), email and channel-name
 * lookups are case-insensitive, and rows decode into exactly the domain
 * records (numbers for BIGINT ids and times, booleans, nulls, JSONB settings;
 * see `internal/Columns.ts`). SqlErrors are defects, as the port types say.
 *
 * @since 0.1.0
 */
import * as Layer from "effect/Layer"
import * as SqlAlertWordRepo from "./SqlAlertWordRepo.ts"
import * as SqlChannelRepo from "./SqlChannelRepo.ts"
import * as SqlGroupRepo from "./SqlGroupRepo.ts"
import * as SqlMessageRepo from "./SqlMessageRepo.ts"
import * as SqlRealmRepo from "./SqlRealmRepo.ts"
import * as SqlSubscriptionRepo from "./SqlSubscriptionRepo.ts"
import * as SqlUserRepo from "./SqlUserRepo.ts"
import * as SqlUserSettingsRepo from "./SqlUserSettingsRepo.ts"

/** @category layers */
export const realmRepo = SqlRealmRepo.layer
/** @category layers */
export const userRepo = SqlUserRepo.layer
/** @category layers */
export const groupRepo = SqlGroupRepo.layer
/** @category layers */
export const channelRepo = SqlChannelRepo.layer
/** @category layers */
export const subscriptionRepo = SqlSubscriptionRepo.layer
/** @category layers */
export const userSettingsRepo = SqlUserSettingsRepo.layer
/** @category layers */
export const alertWordRepo = SqlAlertWordRepo.layer
/** @category layers */
export const messageRepo = SqlMessageRepo.layer

/** Every SQL repository of `ports/Repositories.ts`; needs a migrated database behind SqlClient. @category layers */
export const layer = Layer.mergeAll(
  realmRepo,
  userRepo,
  groupRepo,
  channelRepo,
  subscriptionRepo,
  userSettingsRepo,
  alertWordRepo,
  messageRepo
)
