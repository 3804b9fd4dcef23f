import { usersAdminContract } from "./support/UsersAdminContract.ts"

usersAdminContract("PGlite")
