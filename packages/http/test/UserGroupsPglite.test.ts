import { userGroupsContract } from "./support/UserGroupsContract.ts"

userGroupsContract("PGlite")
