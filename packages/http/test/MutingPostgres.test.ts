/**
 * Needs the PostgreSQL server of TEST_DATABASE_URL (default
 * postgres://postgres@127.0.0.1:5432/test); a fresh database is created for
 * the run and dropped afterwards.
 */
import { mutingContract } from "./support/MutingContract.ts"

mutingContract("PostgreSQL")
