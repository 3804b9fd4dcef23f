import { scheduledMessagesContract } from "./support/ScheduledMessagesContract.ts"

scheduledMessagesContract("memory")
