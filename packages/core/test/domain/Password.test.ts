/**
 * The one password rule: at least Zulip's 6 characters, counted as code
 * points (Python's len), wherever a password is set.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Password from "../../src/domain/Password.ts"

describe("Password.isTooWeak", () => {
  it("refuses fewer than 6 characters, counting an emoji as one", () => {
    assert.strictEqual(Password.minLength, 6)
    for (const weak of ["", "x", "12345", "abcd😀", "👍👍👍👍👍"]) assert.isTrue(Password.isTooWeak(weak), weak)
    for (const strong of ["123456", "abcde😀", "👍👍👍👍👍👍", "teamchat-demo"]) assert.isFalse(Password.isTooWeak(strong), strong)
  })
})
