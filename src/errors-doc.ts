// Renders docs/errors.md from the registry, so the doc can never drift from the code.
import { ERRORS, type ErrorDef } from './errors.js';

export function renderErrorsDoc(): string {
  const rows = (Object.entries(ERRORS) as [string, ErrorDef][])
    .sort((a, b) => a[1].code - b[1].code)
    .map(([name, d]) => `| ${d.code} | \`${name}\` | ${d.http} | ${d.summary}${d.retired ? ' (retired)' : ''} | ${d.remedy.replace(/\|/g, '\\|')} |`);
  return [
    '# Error codes',
    '',
    'Every failure evio reports carries one code from this table: the HTTP service answers',
    '`{"status": CODE, "error": "CODE what happened"}` with the HTTP status shown here, the CLI prints',
    '`evio: CODE what happened` and exits non-zero, and the library throws an `EvioError` whose `code`',
    'is the number. Codes are never reused. This file is generated from `src/errors.ts` by',
    '`npm run docs:errors`; a test fails when the two differ.',
    '',
    '| code | name | HTTP | what happened | what to do |',
    '|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}
