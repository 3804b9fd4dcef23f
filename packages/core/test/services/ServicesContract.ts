/**
 * The service contract, written once and run against every backend
 * (memory, PGlite, PostgreSQL): the services must give exactly the same
 * results whatever persistence sits below them.
 *
 * Three blocks per backend, each over its own fresh database:
 *
 * - "fresh database": exact ids and values of a first organization;
 * - "services": everything else; tests share the database, so each one makes
 *   its own organization (unique string ids and addresses) and states ids
 *   relative to what it created;
 * - "demo organization": the seeded "Zulip Dev" organization, whose ids are
 *   exact again because nothing else lives in that database.
 *
 * Keys come from `KeyGenerator.layerTest` (deterministic), time from a
 * TestClock of each test's own.
 *
 * The cases live by area under contract/ (fixtures.ts holds what they share);
 * this file puts them in their blocks.
 */
import { describe, layer } from "@effect/vitest"
import type * as Layer from "effect/Layer"
import type { Persistence } from "../../src/Persistence.ts"
import type * as Teamchat from "../../src/Teamchat.ts"
import { auditLogTests } from "./contract/AuditLog.ts"
import { authenticationTests } from "./contract/Authentication.ts"
import { channelsTests } from "./contract/Channels.ts"
import { demoOrganizationTests } from "./contract/DemoOrganization.ts"
import { messageActionsTests } from "./contract/MessageActions.ts"
import { organizationsTests } from "./contract/Organizations.ts"
import { userGroupsTests } from "./contract/UserGroups.ts"
import { usersTests } from "./contract/Users.ts"

/**
 * Registers the contract for one backend. `makeLayer` is called once per
 * block and must return every service over a fresh, empty database, with
 * the test secrets (`Teamchat.layerSecretsTest`).
 */
export const servicesContract = (
  name: string,
  makeLayer: () => Layer.Layer<Teamchat.Services | Persistence, unknown>
): void => {
  describe(name, () => {
    layer(makeLayer(), { timeout: "120 seconds", excludeTestServices: true })("fresh database", (it) => {
      organizationsTests(it)
    })

    layer(makeLayer(), { timeout: "120 seconds", excludeTestServices: true })("services", (it) => {
      usersTests(it)
      authenticationTests(it)
      channelsTests(it)
      userGroupsTests(it)
      auditLogTests(it)
      messageActionsTests(it)
    })

    layer(makeLayer(), { timeout: "120 seconds", excludeTestServices: true })("demo organization", (it) => {
      demoOrganizationTests(it)
    })
  })
}
