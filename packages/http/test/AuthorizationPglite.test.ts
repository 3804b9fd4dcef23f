import { authorizationMatrix } from "./support/AuthorizationMatrix.ts"

authorizationMatrix("PGlite")
