/**
 * Generation of secrets and opaque ids: the public module. The service is
 * defined in `internal/KeyGenerator.ts`, below the event pipeline, which
 * draws its queue ids from it.
 *
 * @since 0.1.0
 */
export * from "./internal/KeyGenerator.ts"
