// temporary: start teamchat, print url and iago's key; cpu command
import { startTeamchat } from "./teamchat.ts"
const fast = process.env.FAST !== "0"
const running = await startTeamchat(undefined, fast ? {} : { fastPaths: false })
const r = await fetch(`${running.url}/api/v1/dev_fetch_api_key`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "username=iago@zulip.com" })
const { api_key } = await r.json() as any
console.log(JSON.stringify({ url: running.url, auth: "Basic " + Buffer.from(`iago@zulip.com:${api_key}`).toString("base64") }))
process.stdin.on("data", (d) => { if (String(d).trim() === "cpu") console.log(JSON.stringify(process.cpuUsage())) })
process.stdin.on("end", () => running.close().then(() => process.exit(0)))
