/**
 * Top-level domains that make a bare `name.tld` a link. Zulip checks against
 * the full IANA list minus a few that are mostly file extensions (`md`, `py`,
 * `java`, `mov`, `zip`); this is the country codes plus the generic domains
 * seen in everyday links.
 *
 * @internal
 */

/** Country codes, grouped by first letter: `a` followed by its second letters. */
const countryCodes = [
  "a:cdefgilmoqrstuwxz", "b:abdefghijmnorstvwz", "c:acdfghiklmnoruvwxyz", "d:ejkmoz", "e:cegrstu",
  "f:ijkmor", "g:abdefghilmnpqrstuwy", "h:kmnrtu", "i:delmnoqrst", "j:emop", "k:eghimnprwyz",
  "l:abcikrstuvy", "m:acdeghklmnopqrstuvwxyz", "n:acefgilopruz", "o:m", "p:aefghklmnrstw", "q:a",
  "r:eosuw", "s:abcdeghijklmnorstuvxyz", "t:cdfghjklmnortvwz", "u:agksyz", "v:aceginu", "w:fs",
  "y:et", "z:amw"
].flatMap((group) => {
  const [first, seconds] = group.split(":") as [string, string]
  return [...seconds].map((second) => first + second)
})

const generic = (
  "com net org edu gov mil int arpa info biz name pro aero asia cat coop jobs mobi museum post tel travel xxx " +
  "app dev page blog cloud online site tech store shop xyz club top live life world today news email link wiki " +
  "space website web art design agency digital studio solutions services group company network systems software " +
  "media zone center global fun icu vip work ltd llc inc bank law legal health care city social team tools " +
  "academy institute education school university events photo photos video music games game chat community " +
  "blue red green pink one new plus run sh fyi guru ninja rocks codes computer technology engineering host hosting " +
  "download support help email mail page pub bar cafe pizza restaurant money finance capital fund ventures " +
  "partners consulting management marketing agency careers jobs house land estate properties rentals " +
  "travel tours flights holiday wtf lol moe xin ink gay eco earth gallery foundation charity church love " +
  "google amazon microsoft apple android youtube gle goog"
).split(" ")

const excluded: ReadonlySet<string> = new Set(["java", "md", "mov", "py", "zip"])

/** Longest first, so an alternation tries `co.uk`-style endings sensibly. */
export const topLevelDomains: ReadonlyArray<string> = [...new Set([...countryCodes, ...generic])]
  .filter((tld) => !excluded.has(tld))
  .sort((a, b) => b.length - a.length || (a < b ? -1 : 1))
