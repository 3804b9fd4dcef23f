/**
 * A consistent read of one organization's users and groups, with the group
 * index the permission rules need. Services load it inside a transaction
 * when they decide something from it.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type { OrganizationState } from "../../domain/AccessState.ts"
import type { RealmId } from "../../domain/Ids.ts"
import type { Realm } from "../../domain/Realm.ts"
import { makeGroupIndex } from "../../permissions/GroupMembership.ts"
import { GroupRepo, UserRepo } from "../../ports/Repositories.ts"

export type { OrganizationState }

export const loadOrganizationState = Effect.fnUntraced(function*(realm: Realm) {
  const userRepo = yield* UserRepo
  const groupRepo = yield* GroupRepo
  const [users, groups, membership] = yield* Effect.all([
    userRepo.listByRealm(realm.id),
    groupRepo.listByRealm(realm.id),
    groupRepo.membership(realm.id)
  ])
  const usersById = new Map(users.map((u) => [u.id, u]))
  const index = makeGroupIndex(groups, membership, (id) => usersById.get(id))
  return { realm, users, usersById, groups, index } satisfies OrganizationState
})

export type LoadOrganizationState = (realmId: RealmId) => Effect.Effect<OrganizationState>

/** `loadOrganizationState` bound once to the layer's repositories. */
export const makeOrganizationStateLoader = Effect.map(
  Effect.context<UserRepo | GroupRepo>(),
  (context) => (realm: Realm): Effect.Effect<OrganizationState> =>
    Effect.provideContext(loadOrganizationState(realm), context)
)
