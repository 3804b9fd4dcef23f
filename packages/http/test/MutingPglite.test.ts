import { mutingContract } from "./support/MutingContract.ts"

mutingContract("PGlite")
