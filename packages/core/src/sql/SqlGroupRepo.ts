/**
 * The user groups on SQL, with their direct members and subgroups.
 *
 * @since 0.1.0
 */
import * as Arr from "effect/Array"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import { fromRow } from "../domain/Ids.ts"
import type { GroupId, RealmId, UserId } from "../domain/Ids.ts"
import type { GroupMembership, GroupPermissionSettings, UserGroup } from "../domain/UserGroup.ts"
import { AccessCache } from "../ports/AccessCache.ts"
import { GroupRepo } from "../ports/Repositories.ts"
import type { Insert } from "../ports/Repositories.ts"
import { bool, idOrNull, int, intOrNull, json, jsonText, str } from "./internal/Columns.ts"
import type { Row } from "./internal/Columns.ts"
import { makeTable } from "./internal/Table.ts"
import { bigintArray, inIds } from "./SqlArrays.ts"

const columns = (group: Insert<UserGroup>) => ({
  realm_id: group.realm_id,
  name: group.name,
  description: group.description,
  is_system_group: group.is_system_group,
  creator_id: group.creator_id,
  date_created: group.date_created,
  deactivated: group.deactivated,
  settings: jsonText(group.settings)
})

const decodeGroup = (row: Row): UserGroup => ({
  id: fromRow.groupId(int(row.id)),
  realm_id: fromRow.realmId(int(row.realm_id)),
  name: str(row.name),
  description: str(row.description),
  is_system_group: bool(row.is_system_group),
  creator_id: idOrNull(row.creator_id, fromRow.userId),
  date_created: intOrNull(row.date_created),
  deactivated: bool(row.deactivated),
  settings: json<GroupPermissionSettings>(row.settings)
})

/** The first key of `GroupRepo.lockGroups`'s advisory locks (the second is the organization). */
const GroupWritesLock = 0x67727073 // "grps"

/** Edge rows (ordered by group) as each group's set of targets. */
const edgesByGroup = <R extends { readonly group_id: unknown }, T>(
  rows: ReadonlyArray<R>,
  target: (row: R) => T
): Map<GroupId, Set<T>> => {
  const edges = new Map<GroupId, Set<T>>()
  for (const row of rows) {
    const group = fromRow.groupId(int(row.group_id))
    const set = edges.get(group) ?? new Set()
    set.add(target(row))
    edges.set(group, set)
  }
  return edges
}

/** @category layers */
export const layer: Layer.Layer<GroupRepo, never, SqlClient.SqlClient | AccessCache> = Layer.effect(
  GroupRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const groups = makeTable(sql, { repo: "GroupRepo", table: "user_groups", decode: decodeGroup })
    const { changed } = yield* AccessCache
    const update = groups.update(columns)
    /** A group's direct edges in `table`, to the ids in `column`: added (kept when there) or removed, one statement each. */
    const edges = (table: string, column: string) => ({
      add: (method: string) =>
        Effect.fn(`GroupRepo.${method}`)(function*(group: GroupId, targets: ReadonlyArray<number>) {
          if (!Arr.isReadonlyArrayNonEmpty(targets)) return
          yield* sql`
            INSERT INTO ${sql.literal(table)} (group_id, ${sql.literal(column)})
            SELECT ${group}, t FROM unnest(${bigintArray(sql, targets)}) AS t
            ON CONFLICT DO NOTHING`
          // The edge rows name no organization.
          yield* changed(undefined)
        }, Effect.orDie),
      remove: (method: string) =>
        Effect.fn(`GroupRepo.${method}`)(function*(group: GroupId, targets: ReadonlyArray<number>) {
          if (targets.length === 0) return
          yield* sql`DELETE FROM ${sql.literal(table)} WHERE group_id = ${group} AND ${inIds(sql, column, targets)}`
          yield* changed(undefined)
        }, Effect.orDie)
    })
    const members = edges("user_group_members", "user_id")
    const subgroups = edges("user_group_subgroups", "subgroup_id")
    return GroupRepo.of({
      insert: Effect.fn("GroupRepo.insert")(function*(
        row: Insert<UserGroup>,
        direct?: { readonly members: ReadonlyArray<UserId>; readonly subgroups: ReadonlyArray<GroupId> }
      ) {
        const first = direct?.members ?? []
        const firstSubgroups = direct?.subgroups ?? []
        // The group and its first edges in one statement: the edges' rows
        // read the new id from the group's INSERT.
        const [inserted] = first.length === 0 && firstSubgroups.length === 0
          ? yield* sql<{ id: unknown }>`INSERT INTO user_groups ${sql.insert(columns(row))} RETURNING id`
          : yield* sql<{ id: unknown }>`
            WITH inserted AS (INSERT INTO user_groups ${sql.insert(columns(row))} RETURNING id),
            members AS (
              INSERT INTO user_group_members (group_id, user_id)
              SELECT inserted.id, u FROM inserted, unnest(${bigintArray(sql, first)}) AS u
              ON CONFLICT DO NOTHING),
            subgroups AS (
              INSERT INTO user_group_subgroups (group_id, subgroup_id)
              SELECT inserted.id, g FROM inserted, unnest(${bigintArray(sql, firstSubgroups)}) AS g
              ON CONFLICT DO NOTHING)
            SELECT id FROM inserted`
        const group: UserGroup = { ...row, id: fromRow.groupId(int(inserted!.id)) }
        yield* changed(group.realm_id)
        return group
      }, Effect.orDie),
      update: (group) => Effect.andThen(update(group), changed(group.realm_id)),
      findById: groups.findById,
      findByName: groups.one("findByName", (realm: RealmId, name: string) =>
        sql<Row>`
          SELECT * FROM user_groups WHERE realm_id = ${realm} AND name = ${name} ORDER BY id LIMIT 1`),
      listByRealm: groups.listByRealm,
      addMembers: members.add("addMembers"),
      removeMembers: members.remove("removeMembers"),
      addSubgroups: subgroups.add("addSubgroups"),
      removeSubgroups: subgroups.remove("removeSubgroups"),
      lockGroups: groups.realmLock("lockGroups", GroupWritesLock),
      membership: Effect.fn("GroupRepo.membership")(function*(realm: RealmId) {
        const memberRows = yield* sql<{ group_id: unknown; user_id: unknown }>`
          SELECT m.group_id, m.user_id FROM user_group_members m
          JOIN user_groups g ON g.id = m.group_id
          WHERE g.realm_id = ${realm}
          ORDER BY m.group_id, m.user_id`
        const subgroupRows = yield* sql<{ group_id: unknown; subgroup_id: unknown }>`
          SELECT s.group_id, s.subgroup_id FROM user_group_subgroups s
          JOIN user_groups g ON g.id = s.group_id
          WHERE g.realm_id = ${realm}
          ORDER BY s.group_id, s.subgroup_id`
        const membership: GroupMembership = {
          members: edgesByGroup(memberRows, (row) => fromRow.userId(int(row.user_id))),
          subgroups: edgesByGroup(subgroupRows, (row) => fromRow.groupId(int(row.subgroup_id)))
        }
        return membership
      }, Effect.orDie)
    })
  })
)
