// The command line of every evio command, read strictly by Node's util.parseArgs: an unknown
// flag, a flag without its value or a positional argument too many is an error (1003) that
// names the command and its valid flags, never silently ignored.
//
// Three kinds of flags:
// - value flags (`--out FILE`, `--out=FILE`), repeatable where the command allows it;
// - switches (`--yes`), which also accept an explicit 0|1|true|false (`--all 1`, `--all=0`);
// - parameter flags: the REST parameters of the call (`--runuser root`), passed on as the
//   call's parameters; the REST 0|1 flags among them (`--verbose`) are switches that pass "1".
import { parseArgs } from 'node:util';
import { usageError } from './io.js';

export interface FlagSpec {
  /** The command as the user types it, for messages ("events query"). */
  command: string;
  /** Flags that take a value. */
  values?: readonly string[];
  /** Value flags that may be given more than once. */
  repeatable?: readonly string[];
  /** Switches (no value, or an explicit 0|1|true|false). */
  switches?: readonly string[];
  /** REST 0|1 parameters: switches whose value ("1" or "0") is passed on like a value flag. */
  paramSwitches?: readonly string[];
  /** Short aliases: { o: 'out', n: 'limit' }. -h is always --help. */
  short?: Readonly<Record<string, string>>;
  /** How many positional arguments the command takes at most (default 0). */
  positionals?: number;
}

export interface ParsedFlags {
  /** Value flags and parameter switches, by long name. */
  flags: Record<string, string | string[]>;
  /** Switches given (true). */
  bools: Set<string>;
  positionals: string[];
}

const SWITCH_VALUES: Readonly<Record<string, boolean>> = { '1': true, true: true, '0': false, false: false };

function listFlags(spec: FlagSpec): string {
  const names = [...(spec.values ?? []), ...(spec.switches ?? []), ...(spec.paramSwitches ?? []), 'help'];
  return [...new Set(names)].sort().map((n) => `--${n}`).join(', ');
}

/**
 * Rewrites `--switch 1` / `--switch=0` into the plain switch (or nothing), so that parseArgs sees
 * switches only as switches. Returns the argv to parse and the switches turned off explicitly.
 */
function normaliseSwitches(argv: readonly string[], switches: ReadonlySet<string>): { args: string[]; off: Set<string> } {
  const args: string[] = [];
  const off = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      args.push(...argv.slice(i));
      break;
    }
    const m = /^--([^=]+)(?:=(.*))?$/.exec(a);
    if (!m || !switches.has(m[1]!)) {
      args.push(a);
      continue;
    }
    let value = m[2];
    if (value === undefined && argv[i + 1] !== undefined && Object.hasOwn(SWITCH_VALUES, argv[i + 1]!)) value = argv[++i];
    if (value === undefined || SWITCH_VALUES[value] === true) args.push(`--${m[1]}`);
    else if (Object.hasOwn(SWITCH_VALUES, value)) off.add(m[1]!);
    else throw usageError(`${'--' + m[1]} takes no value, or 0 or 1 (not "${value}")`);
  }
  return { args, off };
}

/** Parses `argv` against the command's flags; throws CLI_USAGE naming what is wrong. */
export function parseFlags(argv: readonly string[], spec: FlagSpec): ParsedFlags {
  const switchNames = new Set([...(spec.switches ?? []), ...(spec.paramSwitches ?? []), 'help']);
  const { args: raw, off } = normaliseSwitches(argv, switchNames);
  // `--at -5`: a negative number is the flag's value, not another flag (parseArgs would say
  // "--at needs a value"); the command then judges the value itself.
  const valueFlags = new Set((spec.values ?? []).map((n) => `--${n}`));
  const args: string[] = [];
  for (let i = 0; i < raw.length; i++) {
    const a = raw[i]!;
    const next = raw[i + 1];
    if (valueFlags.has(a) && next !== undefined && /^-\d+(\.\d+)?$/.test(next)) {
      args.push(`${a}=${next}`);
      i++;
    } else args.push(a);
    if (a === '--') {
      args.push(...raw.slice(i + 1));
      break;
    }
  }
  const options: Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }> = {};
  const repeatable = new Set(spec.repeatable ?? []);
  for (const n of spec.values ?? []) options[n] = { type: 'string', multiple: true };
  for (const n of switchNames) options[n] = { type: 'boolean' };
  options.help = { type: 'boolean', short: 'h' };
  for (const [s, long] of Object.entries(spec.short ?? {})) {
    if (options[long]) options[long]!.short = s;
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args, options, strict: true, allowPositionals: true });
  } catch (err) {
    const code = (err as { code?: string }).code;
    const msg = (err as Error).message;
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      const flag = /'([^']+)'/.exec(msg)?.[1] ?? msg;
      throw usageError(`${spec.command}: unknown flag ${flag}; valid flags: ${listFlags(spec)}`);
    }
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
      const flag = /'(-[^' ]+)/.exec(msg)?.[1] ?? msg;
      throw usageError(`${spec.command}: ${flag} needs a value`);
    }
    throw usageError(`${spec.command}: ${msg}`);
  }
  const max = spec.positionals ?? 0;
  if (parsed.positionals.length > max) {
    const extra = parsed.positionals[max]!;
    throw usageError(max === 0 ? `${spec.command} takes no argument ("${extra}" given); valid flags: ${listFlags(spec)}` : `${spec.command} takes at most ${max} argument${max === 1 ? '' : 's'} ("${extra}" is one too many)`);
  }
  const flags: Record<string, string | string[]> = {};
  const bools = new Set<string>();
  for (const [name, v] of Object.entries(parsed.values)) {
    if (typeof v === 'boolean') {
      if (!v) continue;
      if (spec.paramSwitches?.includes(name)) flags[name] = '1';
      else bools.add(name);
      continue;
    }
    const list = v as string[];
    if (list.length > 1 && !repeatable.has(name)) throw usageError(`${spec.command}: --${name} is given more than once`);
    flags[name] = list.length === 1 ? list[0]! : list;
  }
  for (const name of off) if (spec.paramSwitches?.includes(name)) flags[name] = '0';
  return { flags, bools, positionals: parsed.positionals };
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

/** Prints help when asked for (--help or -h anywhere before `--`); returns true if it did. */
export function wantsHelp(argv: readonly string[], text: string, out: NodeJS.WritableStream): boolean {
  const end = argv.indexOf('--');
  const head = end < 0 ? argv : argv.slice(0, end);
  if (head.includes('--help') || head.includes('-h')) {
    out.write(text.endsWith('\n') ? text : `${text}\n`);
    return true;
  }
  return false;
}
