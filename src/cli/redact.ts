// `evio redact test RULES FILE`: what the redaction rules in RULES would mask in FILE, each match
// told by rule, stream, offset and length with a masked preview, never the matched bytes.
// Exit status: 0 something matched, 3 nothing did (1 an error, 2 a usage error).
import { redactTest } from '../app/redact-test.js';
import { intFlag, parseFlags, wantsHelp } from './flags.js';
import { usageError, type CliCommand } from './io.js';

const HELP = `Usage: evio redact test RULES FILE [--json] [--no-passwords] [--max N]

Shows what the rules in RULES would mask in FILE: one line per match,
  RULE  STREAM  OFFSET  LENGTH  "PREVIEW"
then the matches per rule. The preview is the match's surroundings with the match as *;
the matched bytes are never printed.

RULES  a JSON array of rules ([{"name": "aws-key"}, {"name": "pin", "pattern": "PIN=[0-9]+"}]),
       or a settings file: its "redact" list (and its logsrvd.passprompt)
FILE   a sudo I/O log session directory, an asciicast file, or any other file (read as one
       stream, "file", by every rule)

--json          one JSON object: {file, kind, rules, counts, hits:[{rule, stream, offset, length, preview}], more}
--no-passwords  do not mask what is typed after a password prompt (sessions; masked by default,
                as the log server does unless logsrvd.logPasswords is true)
--max N         list at most N matches (default 1000; all are counted)

Exit status: 0 something matched, 3 nothing matched, 1 an error (its code on standard error).

Example:
  evio redact test /etc/evio/settings.json /var/log/sudo-io/00/00/01
`;

export const redactCommand: CliCommand = {
  name: 'redact',
  summary: 'test redaction rules on a session or a file: evio redact test RULES FILE',
  async run(argv, io) {
    const [verb, ...rest] = argv;
    if (!verb || wantsHelp(argv, HELP, io.out)) return verb ? 0 : 2;
    if (verb !== 'test') throw usageError(`unknown subcommand "redact ${verb}"\n\n${HELP}`);
    const f = parseFlags(rest, { command: 'redact test', values: ['max'], switches: ['json', 'no-passwords'], positionals: 2 });
    const [rules, file] = f.positionals;
    if (!rules || !file) throw usageError(`give RULES and FILE\n\n${HELP}`);
    const max = intFlag(f, 'max', 1000);
    const r = await redactTest(rules, file, { passwords: !f.bools.has('no-passwords'), max, signal: io.signal });
    if (f.bools.has('json')) {
      const hits = r.hits.map((h) => ({ rule: h.rule, stream: r.streamName(h.stream), offset: h.offset, length: h.length, preview: h.preview }));
      io.out.write(`${JSON.stringify({ file: r.file, kind: r.kind, rules: r.rules, counts: r.counts, hits, more: r.more })}\n`);
    } else {
      let text = '';
      for (const h of r.hits) text += `${h.rule}\t${r.streamName(h.stream)}\t${h.offset}\t${h.length}\t${JSON.stringify(h.preview)}\n`;
      if (r.more) text += `(more matches than --max ${max} listed)\n`;
      const counts = Object.entries(r.counts);
      text += counts.length ? `${r.file}: ${counts.map(([k, n]) => `${k} ${n}`).join(', ')}\n` : `${r.file}: nothing matched\n`;
      io.out.write(text);
    }
    return Object.keys(r.counts).length > 0 ? 0 : 3;
  },
};
