import { uploadsContract } from "./support/UploadsContract.ts"

uploadsContract("memory")
