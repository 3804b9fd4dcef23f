/**
 * teamchat's own version, in a module of its own: the command line shows it
 * without loading the server.
 *
 * @since 0.1.0
 */

/** teamchat's own version, shown by the CLI and the root page. @category constants */
export const version = "0.1.0"
