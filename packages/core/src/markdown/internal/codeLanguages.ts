/**
 * The language name Zulip records in `data-code-language`: the Pygments
 * lexer's display name for a known alias (so `js` and `javascript` both give
 * `JavaScript`), otherwise the language exactly as typed (lowercased), which
 * lets clients hook up playgrounds for languages Pygments does not know.
 *
 * Only common aliases are listed; an unlisted Pygments alias falls back to
 * the typed name.
 *
 * @internal
 */

const lexers: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
  ["Python", ["python", "py", "sage", "python3", "py3", "bazel", "starlark", "pyi"]],
  ["Python 2.x", ["python2", "py2"]],
  ["Python console session", ["pycon", "python-console"]],
  ["Python Traceback", ["pytb", "py3tb"]],
  ["JavaScript", ["javascript", "js"]],
  ["TypeScript", ["typescript", "ts"]],
  ["JSX", ["jsx", "react"]],
  ["TSX", ["tsx"]],
  ["JSON", ["json", "json-object"]],
  ["Java", ["java"]],
  ["Kotlin", ["kotlin"]],
  ["Scala", ["scala"]],
  ["C", ["c"]],
  ["C++", ["cpp", "c++"]],
  ["C#", ["csharp", "c#", "cs"]],
  ["Objective-C", ["objective-c", "objectivec", "obj-c", "objc"]],
  ["Swift", ["swift"]],
  ["Go", ["go", "golang"]],
  ["Rust", ["rust", "rs"]],
  ["Ruby", ["ruby", "rb", "duby"]],
  ["PHP", ["php", "php3", "php4", "php5"]],
  ["Perl", ["perl", "pl"]],
  ["Lua", ["lua"]],
  ["Haskell", ["haskell", "hs"]],
  ["Elixir", ["elixir", "ex", "exs"]],
  ["Erlang", ["erlang"]],
  ["Clojure", ["clojure", "clj"]],
  ["OCaml", ["ocaml"]],
  ["Dart", ["dart"]],
  ["Julia", ["julia", "jl"]],
  ["Bash", ["bash", "sh", "ksh", "zsh", "shell", "openrc"]],
  ["Bash Session", ["console", "shell-session"]],
  ["PowerShell", ["powershell", "pwsh", "posh", "ps1", "psm1"]],
  ["Batchfile", ["batch", "bat", "dosbatch", "winbatch"]],
  ["SQL", ["sql"]],
  ["PostgreSQL SQL dialect", ["postgresql", "postgres"]],
  ["MySQL", ["mysql"]],
  ["HTML", ["html"]],
  ["XML", ["xml"]],
  ["CSS", ["css"]],
  ["SCSS", ["scss"]],
  ["Sass", ["sass"]],
  ["YAML", ["yaml"]],
  ["TOML", ["toml"]],
  ["INI", ["ini", "cfg", "dosini"]],
  ["Markdown", ["markdown", "md"]],
  ["reStructuredText", ["restructuredtext", "rst", "rest"]],
  ["TeX", ["tex", "latex"]],
  ["Diff", ["diff", "udiff"]],
  ["Docker", ["docker", "dockerfile"]],
  ["Makefile", ["make", "makefile", "mf", "bsdmake"]],
  ["CMake", ["cmake"]],
  ["Nginx configuration file", ["nginx"]],
  ["GraphQL", ["graphql"]],
  ["Protocol Buffer", ["protobuf", "proto"]],
  ["VimL", ["vim"]],
  ["Emacs Lisp", ["emacs-lisp", "elisp", "emacs"]],
  ["Common Lisp", ["common-lisp", "cl", "lisp"]],
  ["Scheme", ["scheme", "scm"]],
  ["Racket", ["racket", "rkt"]],
  ["Fortran", ["fortran", "f90"]],
  ["Groovy", ["groovy"]],
  ["Text only", ["text"]]
]

const byAlias: ReadonlyMap<string, string> = new Map(
  lexers.flatMap(([name, aliases]) => aliases.map((alias) => [alias, name] as const))
)

export const codeLanguageName = (lang: string): string => byAlias.get(lang) ?? lang
