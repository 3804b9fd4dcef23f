import { userGroupsContract } from "./support/UserGroupsContract.ts"

userGroupsContract("memory")
