// Credentials out of what evio records about a call (the audit log, the request log). A store
// named on the command line can carry a password (`pg:postgres://u:PASSWORD@host/db`, a
// key=value connection string, an ODBC string with `PWD=...;`), and the audit log is readable by
// any app allowed `GET /events` on it, so every string recorded passes through here first:
// - URL userinfo: `scheme://user:PASSWORD@` keeps the user, the password becomes `***`;
// - `NAME=VALUE` pairs whose NAME is secret-like (password, passwd, pwd, secret, token, api key,
//   credential, hmac, key — in any case, with any prefix such as `db_password`), where VALUE is
//   `{...}` (ODBC), quoted, or runs to the next `;`, `&`, white space or comma;
// - on a command line, the word after a secret-named flag (`--password X`) and the value of
//   `--password=X`.
// Parameters whose name is secret-like are not recorded at all (isSecretParam).

/** Secret-like names: exactly hmac or key, or anything that contains a word for a secret. */
const SECRET_NAME = /^(?:hmac|key|[\w.-]*(?:passw(?:or)?d|pwd|secret|token|api[-_]?key|private[-_]?key|credential)[\w.-]*)$/i;

export function isSecretParam(name: string): boolean {
  return SECRET_NAME.test(name);
}

const HIDDEN = '***';

// The userinfo password of a URL. Greedy up to the last `@` before white space: a password with an
// unescaped `/` or `?` is hidden too, at the price of hiding a little more of an odd URL.
const URL_PASSWORD = /([a-z][a-z0-9+.-]*:\/\/[^\s/@:]*):[^\s@]*@/gi;
// A secret-named pair, not inside a longer name (sslkey= stays), in a connection string, an ODBC
// string, a URL query or a command line.
const SECRET_PAIR = /(^|[^\w.-])((?:hmac|key|[\w.-]*(?:passw(?:or)?d|pwd|secret|token|api[-_]?key|private[-_]?key|credential)[\w.-]*)\s*=\s*)(\{[^}]*\}|"[^"]*"|'[^']*'|[^\s;&,]*)/gi;

/** A text with its credentials replaced by `***` (see the top of this file). */
export function redactText(text: string): string {
  if (!text.includes('=') && !text.includes('@')) return text;
  return text.replace(URL_PASSWORD, `$1:${HIDDEN}@`).replace(SECRET_PAIR, `$1$2${HIDDEN}`);
}

/** A command line's words, redacted: the word after `--secret-name` too. */
export function redactArgv(argv: readonly string[]): string[] {
  const out: string[] = [];
  let hideNext = false;
  for (const word of argv) {
    if (hideNext && !word.startsWith('--')) {
      out.push(HIDDEN);
      hideNext = false;
      continue;
    }
    hideNext = false;
    const flag = /^--?([\w.-]+)$/.exec(word);
    if (flag && isSecretParam(flag[1]!)) hideNext = true;
    out.push(redactText(word));
  }
  return out;
}

/** Any recorded value with every string in it redacted (objects and arrays walked). */
export function redactValue(v: unknown, depth = 0): unknown {
  if (typeof v === 'string') return redactText(v);
  if (depth > 8 || v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map((x) => redactValue(x, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k] = isSecretParam(k) ? HIDDEN : redactValue(x, depth + 1);
  return out;
}
