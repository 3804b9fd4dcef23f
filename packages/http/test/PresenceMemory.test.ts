import { presenceContract } from "./support/PresenceContract.ts"

presenceContract("memory")
