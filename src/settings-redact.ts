// The "redact" settings key: an ordered list of rules whose matches in recorded terminal data are
// masked before anything is written (docs/logserver.md, "Redaction"). A rule names a pattern of
// its own, or only a name: then the built-in rule of that name.
import { evioError } from './errors.js';

export type RedactOn = 'input' | 'output' | 'both';

export interface RedactRule {
  name: string;
  /** JavaScript regular expression source (flags: none; matched over the bytes as Latin-1 text). */
  pattern: string;
  on: RedactOn;
}

/** Built-in rules, enabled by naming them (`{"name": "aws-key"}`). */
export const BUILTIN_REDACT_RULES: Readonly<Record<string, Omit<RedactRule, 'name'>>> = {
  'private-key': { pattern: '-----BEGIN [A-Z ]*PRIVATE KEY-----[\\s\\S]*?-----END [A-Z ]*PRIVATE KEY-----', on: 'both' },
  'bearer-token': { pattern: '(?<=[Bb]earer )[A-Za-z0-9\\-._~+/]{16,}=*', on: 'both' },
  'aws-key': { pattern: '(?:AKIA|ASIA)[0-9A-Z]{16}', on: 'both' },
  'password-assignment': { pattern: '(?<=\\b[A-Za-z_]*(?:PASSWORD|PASSWD|SECRET|TOKEN)[A-Za-z_]*=)[^\\s\'"]+', on: 'both' },
};

/** Longest match a rule may have, in bytes: what the masker holds back to see a secret split over records. */
export const REDACT_MAX_MATCH = 8192;

export function parseRedactRules(v: unknown, source: string): RedactRule[] {
  if (v === undefined) return [];
  const bad = (what: string) => evioError('SETTINGS_INVALID', `${source}: "redact"${what}`);
  if (!Array.isArray(v)) throw bad(' must be an array of {"name", "pattern"?, "on"?} rules');
  const names = new Set<string>();
  return v.map((r, i) => {
    if (!r || typeof r !== 'object' || Array.isArray(r)) throw bad(`[${i}] must be an object`);
    const o = r as Record<string, unknown>;
    for (const k of Object.keys(o)) if (!['name', 'pattern', 'on'].includes(k)) throw bad(`[${i}]: unknown key "${k}" (known: name, pattern, on)`);
    if (typeof o.name !== 'string' || !/^[A-Za-z0-9_.-]{1,64}$/.test(o.name)) throw bad(`[${i}].name must be 1-64 letters, digits, _ . -`);
    if (names.has(o.name)) throw bad(`[${i}].name "${o.name}" is used twice`);
    names.add(o.name);
    const builtin = Object.hasOwn(BUILTIN_REDACT_RULES, o.name) ? BUILTIN_REDACT_RULES[o.name] : undefined;
    const pattern = o.pattern ?? builtin?.pattern;
    if (typeof pattern !== 'string' || pattern === '' || pattern.length > 1024) {
      throw bad(`[${i}] ("${o.name}") needs a pattern of 1-1024 characters, or the name of a built-in rule (${Object.keys(BUILTIN_REDACT_RULES).join(', ')})`);
    }
    try {
      new RegExp(pattern);
    } catch (err) {
      throw bad(`[${i}] ("${o.name}"): the pattern is not a valid regular expression: ${(err as Error).message}`);
    }
    const on = o.on ?? builtin?.on ?? 'both';
    if (on !== 'input' && on !== 'output' && on !== 'both') throw bad(`[${i}].on must be "input", "output" or "both"`);
    return { name: o.name, pattern, on };
  });
}
