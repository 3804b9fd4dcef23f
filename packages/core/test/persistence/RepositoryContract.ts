/**
 * The persistence contract, written once and run against every backend
 * (memory, PGlite, PostgreSQL): whatever layer is passed in must give the
 * same observable results.
 *
 * Each `layer(...)` block builds its own database. Tests inside a block share
 * it (PGlite takes seconds to start), so every test creates its own
 * organization and unique emails, names and API keys.
 *
 * The cases live by area under contract/ (fixtures.ts holds what they share);
 * this file puts them in their blocks.
 */
import { describe, layer } from "@effect/vitest"
import type * as Layer from "effect/Layer"
import type { Persistence } from "../../src/Persistence.ts"
import { auditLogTests } from "./contract/AuditLog.ts"
import { channelsTests } from "./contract/Channels.ts"
import { draftsTests } from "./contract/Drafts.ts"
import { groupsTests } from "./contract/Groups.ts"
import { idsTests } from "./contract/Ids.ts"
import { mutingTests } from "./contract/Muting.ts"
import { realmsTests } from "./contract/Realms.ts"
import { subscriptionsTests } from "./contract/Subscriptions.ts"
import { transactorTests } from "./contract/Transactor.ts"
import { usersTests } from "./contract/Users.ts"

/**
 * Registers the contract for one backend. `makeLayer` is called once per
 * block and must return a layer over a fresh, empty database each time.
 */
export const repositoryContract = (
  name: string,
  makeLayer: () => Layer.Layer<Persistence, unknown>
): void => {
  describe(name, () => {
    layer(makeLayer(), { timeout: "60 seconds" })("fresh database", (it) => {
      idsTests(it)
    })

    layer(makeLayer(), { timeout: "60 seconds" })("repositories", (it) => {
      realmsTests(it)
      usersTests(it)
      groupsTests(it)
      channelsTests(it)
      subscriptionsTests(it)
      draftsTests(it)
      mutingTests(it)
      auditLogTests(it)
    })

    layer(makeLayer(), { timeout: "60 seconds" })("Transactor", (it) => {
      transactorTests(it)
    })
  })
}
