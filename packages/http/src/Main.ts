/**
 * The command line's program, loaded by `bin.ts` once Node's compile cache
 * is on.
 *
 * `NodeRuntime.runMain` interrupts the program on SIGINT/SIGTERM, which
 * shuts the server down gracefully; a second signal exits at once.
 *
 * @since 0.1.0
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Cause from "effect/Cause"
import * as Exit from "effect/Exit"
import cluster from "node:cluster"
import * as Cli from "./Cli.ts"

let signals = 0
// A cluster's worker (only Cluster.ts forks this program) can get a
// terminal's Ctrl-C and its primary's SIGTERM: it drains once, and its
// primary kills it if it takes too long. node:cluster, not Cluster.ts, which
// loads the server: start-up stays light.
const forceExit = () => {
  if (++signals > 1 && !cluster.isWorker) {
    process.stderr.write("teamchat: second signal, exiting without waiting\n")
    process.exit(130)
  }
}
process.on("SIGINT", forceExit)
process.on("SIGTERM", forceExit)

NodeRuntime.runMain(Cli.main(process.argv.slice(2)), {
  disableErrorReporting: true,
  teardown: (exit, onExit) => {
    if (Exit.isSuccess(exit)) return onExit(exit.value as number)
    // Interrupted by SIGINT/SIGTERM after a completed graceful shutdown.
    if (Cause.hasInterruptsOnly(exit.cause)) return onExit(0)
    return onExit(Cli.ExitCode.failure)
  }
})
