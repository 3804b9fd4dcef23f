import { uploadsContract } from "./support/UploadsContract.ts"

uploadsContract("PostgreSQL")
