import { pushDevicesContract } from "./support/PushDevicesContract.ts"

pushDevicesContract("PGlite")
