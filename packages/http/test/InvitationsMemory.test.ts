import { invitationsContract } from "./support/InvitationsContract.ts"

invitationsContract("memory")
