import { pushDevicesContract } from "./support/PushDevicesContract.ts"

pushDevicesContract("memory")
