import { draftsContract } from "./support/DraftsContract.ts"

draftsContract("PGlite")
