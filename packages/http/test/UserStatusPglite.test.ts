import { userStatusContract } from "./support/UserStatusContract.ts"

userStatusContract("PGlite")
