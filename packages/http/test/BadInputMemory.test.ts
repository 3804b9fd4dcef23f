import { badInputContract } from "./support/BadInputContract.ts"

badInputContract("memory")
