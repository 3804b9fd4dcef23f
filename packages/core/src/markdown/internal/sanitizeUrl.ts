/**
 * Which link targets become links, and how they are written, following
 * Zulip's URL sanitizer: schemes from a fixed safe list only (never
 * `javascript:` or `data:`), site-relative (`/...`) and fragment (`#...`)
 * links kept, `name@host` read as `mailto:`, and a missing scheme read as
 * `http://`. The URL is split and rejoined the way Python's `urlsplit` and
 * `urlunsplit` do, so odd inputs come out as the server writes them.
 *
 * @internal
 */

/** The HTML standard's safelisted schemes, plus the web and file ones. */
const allowedSchemes: ReadonlySet<string> = new Set([
  "http", "https", "ftp", "file",
  "bitcoin", "geo", "im", "irc", "ircs", "magnet", "mailto", "matrix", "mms", "news", "nntp",
  "openpgp4fpr", "sip", "sms", "smsto", "ssh", "tel", "urn", "webcal", "wtai", "xmpp"
])

/** Schemes that are written with `//` even without a host. */
const netlocSchemes: ReadonlySet<string> = new Set([
  "", "ftp", "http", "gopher", "nntp", "telnet", "imap", "wais", "file", "mms", "https", "shttp",
  "snews", "prospero", "rtsp", "rtsps", "rtspu", "rsync", "svn", "svn+ssh", "sftp", "nfs", "git",
  "git+ssh", "ws", "wss", "itms-services"
])

interface Parts {
  readonly scheme: string
  readonly netloc: string
  readonly path: string
  readonly query: string
  readonly fragment: string
}

const split = (raw: string): Parts | undefined => {
  let url = raw.replace(/^[\u0000-\u0020]+/, "").replace(/[\t\r\n]/g, "")
  let scheme = ""
  let netloc = ""
  let query = ""
  let fragment = ""
  const colon = url.indexOf(":")
  if (colon > 0 && /^[A-Za-z][A-Za-z0-9+.-]*$/.test(url.slice(0, colon))) {
    scheme = url.slice(0, colon).toLowerCase()
    url = url.slice(colon + 1)
  }
  if (url.startsWith("//")) {
    const end = url.slice(2).search(/[/?#]/)
    netloc = end < 0 ? url.slice(2) : url.slice(2, end + 2)
    url = end < 0 ? "" : url.slice(end + 2)
    if (netloc.includes("[") !== netloc.includes("]")) return undefined
  }
  const hash = url.indexOf("#")
  if (hash >= 0) {
    fragment = url.slice(hash + 1)
    url = url.slice(0, hash)
  }
  const question = url.indexOf("?")
  if (question >= 0) {
    query = url.slice(question + 1)
    url = url.slice(0, question)
  }
  return { scheme, netloc, path: url, query, fragment }
}

const join = ({ scheme, netloc, path, query, fragment }: Parts): string => {
  let url = path
  if (netloc !== "") url = `//${netloc}${url !== "" && !url.startsWith("/") ? "/" : ""}${url}`
  else if (url.startsWith("//")) url = `//${url}`
  else if (scheme !== "" && netlocSchemes.has(scheme) && (url === "" || url.startsWith("/"))) url = `//${url}`
  if (scheme !== "") url = `${scheme}:${url}`
  if (query !== "") url = `${url}?${query}`
  if (fragment !== "") url = `${url}#${fragment}`
  return url
}

/** The href to write for `url`, or `undefined` when it must stay plain text. */
export const sanitizeUrl = (url: string): string | undefined => {
  const parts = split(url.replace(/ /g, "%20"))
  if (parts === undefined) return ""
  let { scheme } = parts
  const { netloc, path, query, fragment } = parts
  if (scheme === "" && netloc === "" && path.includes("@")) {
    scheme = "mailto"
  } else if (scheme === "" && netloc === "" && path.startsWith("/")) {
    return join({ scheme: "", netloc: "", path, query, fragment })
  } else if (scheme === "" && netloc === "" && path === "" && query === "" && fragment !== "") {
    return join({ scheme: "", netloc: "", path: "", query: "", fragment })
  }
  if (scheme === "") return sanitizeUrl(`http://${url}`)
  if (!allowedSchemes.has(scheme)) return undefined
  return join({ scheme, netloc, path, query, fragment })
}

/** The host and path of `url` as seen from the site root (for `/user_uploads/`). */
export const siteLocation = (url: string): { readonly host: string; readonly path: string } | undefined => {
  const parts = split(url.startsWith("user_uploads/") ? `/${url}` : url)
  return parts === undefined ? undefined : { host: parts.netloc, path: parts.path }
}
