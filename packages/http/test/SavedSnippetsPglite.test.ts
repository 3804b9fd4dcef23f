import { savedSnippetsContract } from "./support/SavedSnippetsContract.ts"

savedSnippetsContract("PGlite")
