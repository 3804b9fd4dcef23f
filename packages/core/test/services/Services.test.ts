/**
 * The service contract on every backend: memory, PGlite and PostgreSQL (a
 * fresh database per block on the server named by TEST_DATABASE_URL,
 * default postgres://postgres@127.0.0.1:5432/test), every published event
 * checked against its schema.
 */
import * as Layer from "effect/Layer"
import * as CheckedEvents from "../../src/testing/CheckedEvents.ts"
import * as TestDatabase from "../../src/testing/TestDatabase.ts"
import { servicesContract } from "./ServicesContract.ts"

servicesContract("memory", () => CheckedEvents.layerMemory())

servicesContract(
  "PGlite",
  () => CheckedEvents.layerSql().pipe(Layer.provide(TestDatabase.pgliteMigratedLayer()))
)

servicesContract(
  "PostgreSQL",
  () => CheckedEvents.layerSql().pipe(Layer.provide(TestDatabase.postgresLayer()))
)
