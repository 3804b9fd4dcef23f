import { scheduledMessagesContract } from "./support/ScheduledMessagesContract.ts"

scheduledMessagesContract("PGlite")
