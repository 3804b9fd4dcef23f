/**
 * The service contract on every backend: memory, PGlite and PostgreSQL (a
 * fresh database per block on the server named by TEST_DATABASE_URL,
 * default postgres://postgres@127.0.0.1:5432/test).
 */
import * as Layer from "effect/Layer"
import * as Teamchat from "../../src/Teamchat.ts"
import * as TestDatabase from "../../src/testing/TestDatabase.ts"
import { servicesContract } from "./ServicesContract.ts"

servicesContract("memory", () => Teamchat.layerMemory(Teamchat.layerSecretsTest))

servicesContract(
  "PGlite",
  () => Teamchat.layerSql(Teamchat.layerSecretsTest).pipe(Layer.provide(TestDatabase.pgliteLayer()))
)

servicesContract(
  "PostgreSQL",
  () => Teamchat.layerSql(Teamchat.layerSecretsTest).pipe(Layer.provide(TestDatabase.postgresLayer()))
)
