import { apiContract } from "./support/ApiContract.ts"

apiContract("PGlite")
