// The InfoMessages of an Accept read as sudo_logsrvd 1.9.13 reads them (evlog_new in
// logsrvd/iolog_writer.c): the keys it knows, each only with its protocol type (a key of the
// wrong type is ignored, as logsrvd ignores it with a warning), numbers only in range, and its
// defaults (columns 80, lines 24, submitcwd and ttyname "unknown", runcwd = submitcwd, submitgroup
// "unknown"). submituser, submithost, runuser and command are required.
//
// The other keys are kept in the order they came, for log.json, when a sudoreplay would read
// them: keys that sudo (up to its git HEAD) reads from log.json with another type are dropped, as
// are the keys the writer itself owns (timestamp and the exit keys), so that no client can make
// a log.json that sudoreplay refuses.
import { evioError } from '../../errors.js';
import type { InfoValue } from './types.js';

export interface AcceptInfo {
  submituser: string;
  submithost: string;
  runuser: string;
  command: string;
  columns: number;
  lines: number;
  runargv: string[] | null;
  runenv: string[] | null;
  runchroot: string | null;
  /** runcwd, else submitcwd */
  runcwd: string;
  /** submitcwd, else "unknown" */
  cwd: string;
  submitgroup: string;
  rungroup: string | null;
  rungid: number | null;
  runuid: number | null;
  /** ttyname, else "unknown" */
  ttyname: string;
  /** Further keys, in arrival order, for log.json. */
  others: [string, InfoValue][];
}

const INT_MAX = 0x7fffffff;
const UINT_MAX = 0xffffffff;

type Kind = 'string' | 'number' | 'strings' | 'numbers';

function kindOf(v: InfoValue): Kind | null {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return Number.isInteger(v) ? 'number' : null;
  if (Array.isArray(v)) {
    if (v.every((e) => typeof e === 'string')) return 'strings';
    if (v.every((e) => typeof e === 'number' && Number.isInteger(e))) return 'numbers';
  }
  return null;
}

/** The keys evlog_new takes, with their protocol type. */
const LOGSRVD_KEYS: Readonly<Record<string, Kind>> = {
  columns: 'number',
  command: 'string',
  lines: 'number',
  runargv: 'strings',
  runchroot: 'string',
  runcwd: 'string',
  runenv: 'strings',
  rungid: 'number',
  rungroup: 'string',
  runuid: 'number',
  runuser: 'string',
  submitcwd: 'string',
  submitgroup: 'string',
  submithost: 'string',
  submituser: 'string',
  ttyname: 'string',
};

/** Written by the writer itself (start and exit), never taken from a client. */
const OWN_KEYS: ReadonlySet<string> = new Set(['timestamp', 'run_time', 'exit_value', 'signal', 'dumped_core', 'iolog_offset']);

/** Keys sudo's log.json reader (lib/eventlog/parse_json.c at HEAD) reads with a type: another type fails the whole file there. */
const SUDO_READS: Readonly<Record<string, Kind>> = {
  iolog_file: 'string',
  iolog_path: 'string',
  peeraddr: 'string',
  runenv_override: 'strings',
  source: 'string',
  submitenv: 'strings',
  uuid: 'string',
};

export function readAcceptInfo(info: ReadonlyMap<string, InfoValue>): AcceptInfo {
  const known = new Map<string, InfoValue>();
  const others: [string, InfoValue][] = [];
  for (const [key, value] of info) {
    const kind = kindOf(value);
    // An empty list is both kinds.
    const fits = (want: Kind) => kind === want || (Array.isArray(value) && value.length === 0 && (want === 'strings' || want === 'numbers'));
    const logsrvd = LOGSRVD_KEYS[key];
    if (logsrvd !== undefined) {
      if (fits(logsrvd)) known.set(key, value);
      if (key === 'submitgroup' && fits('string')) others.push([key, value]); // read by logsrvd, not written by it; sudo 1.9.15+ writes it
      continue;
    }
    if (OWN_KEYS.has(key) || kind === null) continue;
    const sudo = SUDO_READS[key];
    if (sudo !== undefined && !fits(sudo)) continue;
    if (key === 'uuid' && (value as string).length !== 36) continue; // sudo refuses a uuid of another length
    others.push([key, value]);
  }
  const str = (k: string): string | null => {
    const v = known.get(k);
    return typeof v === 'string' ? v : null;
  };
  const num = (k: string, lo: number, hi: number): number | null => {
    const v = known.get(k);
    return typeof v === 'number' && v >= lo && v <= hi ? v : null;
  };
  const list = (k: string): string[] | null => {
    const v = known.get(k);
    return Array.isArray(v) ? (v as string[]).slice() : null;
  };
  const required = (k: string): string => {
    const v = str(k);
    if (v === null) throw evioError('IOLOG_BAD_RECORD', `the Accept has no ${k} (a string); sudo_logsrvd requires submituser, submithost, runuser and command`);
    return v;
  };
  const submituser = required('submituser');
  const submithost = required('submithost');
  const runuser = required('runuser');
  const command = required('command');
  const cwd = str('submitcwd') ?? 'unknown';
  return {
    submituser,
    submithost,
    runuser,
    command,
    columns: num('columns', 1, INT_MAX) ?? 80,
    lines: num('lines', 1, INT_MAX) ?? 24,
    runargv: list('runargv'),
    runenv: list('runenv'),
    runchroot: str('runchroot'),
    runcwd: str('runcwd') ?? cwd,
    cwd,
    submitgroup: str('submitgroup') ?? 'unknown',
    rungroup: str('rungroup'),
    rungid: num('rungid', 0, UINT_MAX - 1), // (gid_t)-1 means unset to sudo
    runuid: num('runuid', 0, UINT_MAX - 1),
    ttyname: str('ttyname') ?? 'unknown',
    others,
  };
}
