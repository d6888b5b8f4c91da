// Minimal flag reading shared by the commands: `--name value`, `--name=value`, boolean flags,
// positionals. Unknown names are passed through to the engine's own validation (query
// parameters), which names the allowed ones.
import { usageError } from './io.js';

export interface ParsedFlags {
  flags: Record<string, string | string[]>;
  bools: Set<string>;
  positionals: string[];
}

export function parseFlags(argv: readonly string[], booleans: readonly string[] = []): ParsedFlags {
  const flags: Record<string, string | string[]> = {};
  const bools = new Set<string>();
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!a.startsWith('--') || a === '--') {
      positionals.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const name = a.slice(2, eq < 0 ? undefined : eq);
    if (booleans.includes(name)) {
      bools.add(name);
      continue;
    }
    const value = eq >= 0 ? a.slice(eq + 1) : argv[++i];
    if (value === undefined) throw usageError(`--${name} needs a value`);
    const prev = flags[name];
    flags[name] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value];
  }
  return { flags, bools, positionals };
}

export function intFlag(f: ParsedFlags, name: string, dflt: number): number {
  const v = f.flags[name];
  if (v === undefined) return dflt;
  if (Array.isArray(v) || !/^\d+$/.test(v)) throw usageError(`--${name} must be a whole number`);
  return Number(v);
}

export function strFlag(f: ParsedFlags, name: string): string | undefined {
  const v = f.flags[name];
  if (Array.isArray(v)) throw usageError(`--${name} is given more than once`);
  return v;
}

/** Prints help when asked for; returns true if it did. */
export function wantsHelp(argv: readonly string[], text: string, out: NodeJS.WritableStream): boolean {
  if (argv.includes('--help') || argv.includes('-h')) {
    out.write(text.endsWith('\n') ? text : `${text}\n`);
    return true;
  }
  return false;
}
