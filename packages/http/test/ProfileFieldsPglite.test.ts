import { profileFieldsContract } from "./support/ProfileFieldsContract.ts"

profileFieldsContract("PGlite")
