import { eventsContract } from "./support/EventsContract.ts"

eventsContract("PGlite")
