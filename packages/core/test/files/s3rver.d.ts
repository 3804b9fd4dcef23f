/** The little of s3rver (a fake S3 server, for tests) the S3 store's tests use. */
declare module "s3rver" {
  interface S3rverOptions {
    readonly port?: number
    readonly address?: string
    readonly directory: string
    readonly silent?: boolean
    readonly configureBuckets?: ReadonlyArray<{ readonly name: string }>
  }
  export default class S3rver {
    constructor(options: S3rverOptions)
    run(): Promise<{ readonly address: string; readonly port: number }>
    close(): Promise<void>
  }
}
