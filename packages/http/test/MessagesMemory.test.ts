import { messagesContract } from "./support/MessagesContract.ts"

messagesContract("memory")
