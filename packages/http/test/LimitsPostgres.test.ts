import { limitsContract } from "./support/LimitsContract.ts"

limitsContract("PostgreSQL")
