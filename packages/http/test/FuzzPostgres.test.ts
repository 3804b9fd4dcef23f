/**
 * Needs the PostgreSQL server of TEST_DATABASE_URL (default
 * postgres://postgres@127.0.0.1:5432/test); a fresh database is created for
 * the run and dropped afterwards. Two workers serve it (requests alternate
 * between two servers over the database), as a deployment with WORKERS=2.
 */
import { layerTwoWorkers } from "./support/concurrency/TwoWorkers.ts"
import { fuzzEventQueues, fuzzSuite } from "./fuzz/Fuzz.ts"

fuzzSuite("PostgreSQL", layerTwoWorkers({ eventQueues: fuzzEventQueues }))
