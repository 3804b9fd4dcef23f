/**
 * The queue contract on memory, PGlite and PostgreSQL (a fresh database on
 * TEST_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test).
 */
import { backends } from "./fixtures.ts"
import { queueContract } from "./QueueContract.ts"

queueContract("memory", backends.memory)
queueContract("PGlite", backends.PGlite)
queueContract("PostgreSQL", backends.PostgreSQL)
