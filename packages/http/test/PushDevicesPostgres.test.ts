/**
 * Needs the PostgreSQL server of TEST_DATABASE_URL (default
 * postgres://postgres@127.0.0.1:5432/test); a fresh database is created for
 * each server layer and dropped afterwards.
 */
import { pushDevicesContract } from "./support/PushDevicesContract.ts"

pushDevicesContract("PostgreSQL")
