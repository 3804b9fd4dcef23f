import { eventsContract } from "./support/EventsContract.ts"

eventsContract("memory")
