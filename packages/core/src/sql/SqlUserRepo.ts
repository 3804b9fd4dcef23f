/**
 * The users on SQL.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import { fromRow } from "../domain/Ids.ts"
import type { RealmId, UserId } from "../domain/Ids.ts"
import type { BotType, EmailVisibility, Role } from "../domain/Role.ts"
import type { AvatarSource, User } from "../domain/User.ts"
import { AccessCache } from "../ports/AccessCache.ts"
import { UserRepo } from "../ports/Repositories.ts"
import type { Insert } from "../ports/Repositories.ts"
import { bool, first, idOrNull, int, intOrNull, json, str, strOrNull } from "./internal/Columns.ts"
import type { Row } from "./internal/Columns.ts"
import { makeTable } from "./internal/Table.ts"
import { decodeRealm } from "./SqlRealmRepo.ts"

const columns = (user: User) => ({
  id: user.id,
  realm_id: user.realm_id,
  delivery_email: user.delivery_email,
  email: user.email,
  full_name: user.full_name,
  role: user.role,
  is_bot: user.is_bot,
  bot_type: user.bot_type,
  bot_owner_id: user.bot_owner_id,
  is_active: user.is_active,
  timezone: user.timezone,
  avatar_source: user.avatar_source,
  avatar_version: user.avatar_version,
  date_joined: user.date_joined,
  email_address_visibility: user.email_address_visibility,
  api_key: user.api_key,
  password_hash: user.password_hash,
  can_change_user_emails: user.can_change_user_emails
})

const decodeUser = (row: Row): User => ({
  id: fromRow.userId(int(row.id)),
  realm_id: fromRow.realmId(int(row.realm_id)),
  delivery_email: str(row.delivery_email),
  email: str(row.email),
  full_name: str(row.full_name),
  role: int(row.role) as Role,
  is_bot: bool(row.is_bot),
  bot_type: intOrNull(row.bot_type) as BotType | null,
  bot_owner_id: idOrNull(row.bot_owner_id, fromRow.userId),
  is_active: bool(row.is_active),
  timezone: str(row.timezone),
  avatar_source: str(row.avatar_source) as AvatarSource,
  avatar_version: int(row.avatar_version),
  date_joined: int(row.date_joined),
  email_address_visibility: int(row.email_address_visibility) as EmailVisibility,
  api_key: str(row.api_key),
  password_hash: strOrNull(row.password_hash),
  can_change_user_emails: bool(row.can_change_user_emails)
})

const UserAddressesLock = 0x75737273 // "usrs"
const UserRolesLock = 0x726f6c65 // "role"

/** @category layers */
export const layer: Layer.Layer<UserRepo, never, SqlClient.SqlClient | AccessCache> = Layer.effect(
  UserRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const users = makeTable(sql, { repo: "UserRepo", table: "users", decode: decodeUser })
    const { changed } = yield* AccessCache
    const update = users.update(columns, ["id"])
    return UserRepo.of({
      insert: Effect.fn("UserRepo.insert")(function*(make: (id: UserId) => Insert<User>) {
        // Take the id first, so `make` can derive fields from it.
        const [next] = yield* sql<{ id: unknown }>`SELECT nextval(pg_get_serial_sequence('users', 'id')) AS id`
        const id = fromRow.userId(int(next!.id))
        const user: User = { ...make(id), id }
        yield* sql`INSERT INTO users ${sql.insert(columns(user))}`
        yield* changed(user.realm_id)
        return user
      }, Effect.orDie),
      update: (user) => Effect.andThen(update(user), changed(user.realm_id)),
      findById: users.findById,
      // NO KEY UPDATE, the lock an UPDATE of other columns takes: it leaves
      // foreign-key checks (a send's rows naming the user) free to go on.
      findByIdForUpdate: users.one(
        "findByIdForUpdate",
        (id: UserId) => sql<Row>`SELECT * FROM users WHERE id = ${id} FOR NO KEY UPDATE`
      ),
      lockRoles: users.realmLock("lockRoles", UserRolesLock),
      lockAddresses: users.realmLock("lockAddresses", UserAddressesLock),
      findByDeliveryEmail: users.one("findByDeliveryEmail", (realm: RealmId, email: string) =>
        sql<Row>`
          SELECT * FROM users
          WHERE lower(delivery_email) = lower(${email}) AND realm_id = ${realm}
          ORDER BY id LIMIT 1`),
      findByApiKey: users.one(
        "findByApiKey",
        (apiKey: string) => sql<Row>`SELECT * FROM users WHERE api_key = ${apiKey} ORDER BY id LIMIT 1`
      ),
      findByApiKeyWithRealm: Effect.fn("UserRepo.findByApiKeyWithRealm")(function*(apiKey: string) {
        const rows = yield* sql<Row>`
          SELECT u.*, to_jsonb(r.*) AS realm_row FROM users u JOIN realms r ON r.id = u.realm_id
          WHERE u.api_key = ${apiKey} ORDER BY u.id LIMIT 1`
        const row = first(rows)
        return row === undefined ? undefined : { user: decodeUser(row), realm: decodeRealm(json<Row>(row.realm_row)) }
      }, Effect.orDie),
      listByRealm: users.listByRealm
    })
  })
)
