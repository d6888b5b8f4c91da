// History expansion as bash and zsh (and csh before them) do it on an entered line: `!!`, `!grep`,
// `!-2`, `!$`, `!!:1`, `^old^new`. The shell prints the expanded line on the row after the
// line typed before it runs it, so the command run is that row (echo-judge.ts takes it as
// `shown`); what is here decides whether a line asked for an expansion, and whether a row is
// its expansion rather than the command's output or the shell's error.
//
// An expansion is asked for by a line beginning with `^` (quick substitution), or by a `!`
// outside single quotes, not after a backslash, and followed by something other than a blank,
// `=`, `(` or `"` (bash expands none of those).

/**
 * The errors bash and zsh print instead of running a line whose expansion failed
 * (`bash: :9: bad word specifier`, `zsh: no such word in event`).
 */
const EXPANSION_ERROR = /^[\w./-]+: (?:.*: )?(?:event not found|no such event|no such word in event|substitution failed|bad word specifier|(?:illegal|unrecognized history) modifier|no previous (?:substitution|command|regular expression))\b/;

/** The words of `line` that ask for a history expansion (empty when none does). */
export function historyWords(line: string): string[] {
  const words: string[] = [];
  if (line.startsWith('^')) {
    const end = line.search(/\s/);
    words.push(end < 0 ? line : line.slice(0, end));
  }
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'") quoted = !quoted;
    else if (c === '\\' && !quoted) i++;
    else if (c === '!' && !quoted) {
      const next = line[i + 1];
      if (next === undefined || /[\s=("]/.test(next)) continue;
      const m = /^!\S*/.exec(line.slice(i))!;
      words.push(m[0]);
      i += m[0].length - 1;
    }
  }
  return words;
}

/**
 * Whether `row` reads as the expansion of `line` (whose expansion words are `words`): it holds
 * no expansion word as typed (bash's `!x: event not found` quotes them) and is no expansion
 * error of bash's or zsh's, and the text typed around them occurs in it in order (a command's
 * output would not), the new text of a `^old^new` substitution too.
 */
export function isExpansionOf(line: string, words: readonly string[], row: string): boolean {
  if (row === '' || words.length === 0) return false;
  if (words.some((w) => row.includes(w)) || EXPANSION_ERROR.test(row)) return false;
  let rest = line;
  const literal: string[] = [];
  for (const w of words) {
    const at = rest.indexOf(w);
    if (at < 0) break;
    literal.push(rest.slice(0, at));
    if (w.startsWith('^')) literal.push(w.split('^')[2] ?? '');
    rest = rest.slice(at + w.length);
  }
  literal.push(rest);
  let from = 0;
  for (const part of literal.map((p) => p.trim()).filter((p) => p !== '')) {
    const at = row.indexOf(part, from);
    if (at < 0) return false;
    from = at + part.length;
  }
  return true;
}
