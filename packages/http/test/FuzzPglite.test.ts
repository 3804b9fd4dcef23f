import { fuzzSuite } from "./fuzz/Fuzz.ts"

fuzzSuite("PGlite")
