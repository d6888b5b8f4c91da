// SIEM export formats: each maps one stored event (a verbose record, DESIGN §2) to a fixed shape,
// field by field as docs/siem.md lists, the same record always giving the same output.
// - ecs:  Elastic Common Schema 8.x, one nested JSON document per line;
// - ocsf: OCSF 1.3, Process Activity (1007: accepts and sessions launch, finishes terminate) and
//         Authentication (3002: rejects, a failed logon to the run-as user), one per line;
// - cef:  ArcSight CEF:0 lines, header and extension escaped as the CEF spec requires.
// sudo's event types: A accept, K accept whose session was I/O-logged, R reject, F finish.

export const PRODUCT = { vendor: 'evio', name: 'evio', version: '0.1.0' } as const;
export const ECS_VERSION = '8.11.0';
export const OCSF_VERSION = '1.3.0';

type Rec = Record<string, unknown>;

const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const int = (v: unknown): number | undefined => (typeof v === 'number' && Number.isInteger(v) ? v : undefined);

/** Unix ms of the record's `time` (seconds, fraction allowed); 0 when absent. */
export function timeMs(r: Rec): number {
  return typeof r.time === 'number' && Number.isFinite(r.time) ? Math.round(r.time * 1000) : 0;
}

function argv(r: Rec): string[] | undefined {
  return Array.isArray(r.runargv) && r.runargv.every((a) => typeof a === 'string') ? (r.runargv as string[]) : undefined;
}

/** The command line: runargv joined by spaces, else runcommand. */
export function commandLine(r: Rec): string | undefined {
  const a = argv(r);
  return a && a.length ? a.join(' ') : text(r.runcommand);
}

/** The exit code: the stored `exitcode`, else the number sudo wrote in `exitstatus`. */
export function exitCode(r: Rec): number | undefined {
  const c = int(r.exitcode);
  if (c !== undefined) return c;
  const m = typeof r.exitstatus === 'string' ? /exit status (\d{1,3})\b/.exec(r.exitstatus) : null;
  return m ? Number(m[1]) : undefined;
}

export type Outcome = 'success' | 'failure' | 'unknown';

/** A and K: the command was allowed; R: refused; F: by its exit (a signal or non-zero code fails). */
export function outcomeOf(r: Rec): Outcome {
  switch (r.etype) {
    case 'A':
    case 'K':
      return 'success';
    case 'R':
      return 'failure';
    case 'F': {
      if (int(r.signal) !== undefined) return 'failure';
      const c = exitCode(r);
      return c === undefined ? 'unknown' : c === 0 ? 'success' : 'failure';
    }
    default:
      return 'unknown';
  }
}

export const ACTIONS: Record<string, string> = { A: 'sudo-accept', K: 'sudo-accept-iolog', R: 'sudo-reject', F: 'sudo-finish' };
const NAMES: Record<string, string> = { A: 'sudo command accepted', K: 'sudo command accepted (I/O logged)', R: 'sudo command rejected', F: 'sudo command finished' };

function basename(p: string | undefined): string | undefined {
  return p === undefined ? undefined : p.slice(p.lastIndexOf('/') + 1) || undefined;
}

/** Drops undefined members (and objects left empty), so absent fields are absent, not null. */
function prune<T extends Rec>(o: T): T {
  for (const k of Object.keys(o)) {
    const v = o[k];
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) prune(v as Rec);
    if (v === undefined || (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v as Rec).length === 0)) delete o[k];
  }
  return o;
}

function unique(...xs: Array<string | undefined>): string[] | undefined {
  const out = [...new Set(xs.filter((x): x is string => x !== undefined))];
  return out.length ? out : undefined;
}

/** One record as an ECS document. */
export function toEcs(r: Rec): Rec {
  const etype = String(r.etype);
  const ms = timeMs(r);
  const iso = new Date(ms).toISOString();
  const cmd = commandLine(r);
  const exe = text(r.runcommand);
  const eventType = etype === 'F' ? ['end'] : etype === 'R' ? ['denied'] : ['start'];
  return prune({
    '@timestamp': iso,
    ecs: { version: ECS_VERSION },
    event: {
      kind: 'event',
      category: ['process'],
      type: eventType,
      action: ACTIONS[etype] ?? `sudo-${etype}`,
      outcome: outcomeOf(r),
      code: etype,
      id: r.recnum === undefined ? undefined : String(r.recnum),
      provider: 'sudo',
      module: 'evio',
      dataset: 'evio.events',
      reason: text(r.reason),
      start: etype === 'F' ? undefined : iso,
      end: etype === 'F' ? iso : undefined,
    },
    user: { name: text(r.submituser), effective: { name: text(r.runuser) } },
    host: { name: text(r.runhost) ?? text(r.submithost) },
    source: { address: text(r.submithost) },
    process: {
      executable: exe,
      name: basename(exe),
      command_line: cmd,
      args: argv(r),
      args_count: argv(r)?.length,
      working_directory: text(r.cwd),
      exit_code: etype === 'F' ? exitCode(r) : undefined,
      entity_id: text(r.uniqueid),
    },
    related: { user: unique(text(r.submituser), text(r.runuser)), hosts: unique(text(r.submithost), text(r.runhost)) },
    labels: { sudo_tty: text(r.ttyname), sudo_iolog: text(r.iolog), sudo_masterhost: text(r.masterhost), sudo_exitstatus: text(r.exitstatus) },
    message: `${NAMES[etype] ?? etype}: ${text(r.submituser) ?? '-'} as ${text(r.runuser) ?? '-'} on ${text(r.runhost) ?? text(r.submithost) ?? '-'}: ${cmd ?? '-'}`,
  });
}

const STATUS: Record<Outcome, [number, string]> = { success: [1, 'Success'], failure: [2, 'Failure'], unknown: [0, 'Unknown'] };

/** One record as an OCSF event: Process Activity for A, K and F; Authentication for R. */
export function toOcsf(r: Rec): Rec {
  const etype = String(r.etype);
  const [statusId, status] = STATUS[outcomeOf(r)];
  const metadata = {
    version: OCSF_VERSION,
    product: { name: PRODUCT.name, vendor_name: PRODUCT.vendor, version: PRODUCT.version },
    uid: r.recnum === undefined ? undefined : String(r.recnum),
    correlation_uid: text(r.uniqueid),
    log_name: 'sudo',
  };
  const unmapped = { etype, iolog: text(r.iolog), ttyname: text(r.ttyname), masterhost: text(r.masterhost), exitstatus: text(r.exitstatus) };
  const common = { time: timeMs(r), metadata, status_id: statusId, status, message: `${NAMES[etype] ?? etype}` };
  const process = prune({
    cmd_line: commandLine(r),
    name: basename(text(r.runcommand)),
    file: { path: text(r.runcommand), name: basename(text(r.runcommand)), type_id: 1 },
    user: { name: text(r.runuser) },
    working_directory: text(r.cwd),
    uid: text(r.uniqueid),
  });
  if (etype === 'R') {
    return prune({
      class_uid: 3002,
      class_name: 'Authentication',
      category_uid: 3,
      category_name: 'Identity & Access Management',
      activity_id: 1,
      activity_name: 'Logon',
      type_uid: 300201,
      type_name: 'Authentication: Logon',
      severity_id: 3,
      severity: 'Medium',
      ...common,
      status_detail: text(r.reason),
      user: { name: text(r.runuser) },
      actor: { user: { name: text(r.submituser) }, process },
      src_endpoint: { hostname: text(r.submithost) },
      dst_endpoint: { hostname: text(r.runhost) ?? text(r.submithost) },
      is_remote: false,
      unmapped,
    });
  }
  const terminate = etype === 'F';
  return prune({
    class_uid: 1007,
    class_name: 'Process Activity',
    category_uid: 1,
    category_name: 'System Activity',
    activity_id: terminate ? 2 : 1,
    activity_name: terminate ? 'Terminate' : 'Launch',
    type_uid: terminate ? 100702 : 100701,
    type_name: terminate ? 'Process Activity: Terminate' : 'Process Activity: Launch',
    severity_id: 1,
    severity: 'Informational',
    ...common,
    actor: { user: { name: text(r.submituser) } },
    device: { hostname: text(r.runhost) ?? text(r.submithost), type_id: 0 },
    process,
    exit_code: terminate ? exitCode(r) : undefined,
    unmapped,
  });
}

/** A CEF header field: `\` and `|` escaped; a line break would end the event, so it is a space. */
export function cefHeader(v: string): string {
  return v.replace(/[\\|]/g, (c) => `\\${c}`).replace(/\r\n|[\r\n]/g, ' ');
}

/** A CEF extension value: `\` and `=` escaped, line breaks written as `\n` and `\r`. */
export function cefValue(v: string): string {
  return v.replace(/[\\=]/g, (c) => `\\${c}`).replace(/\r\n|\n/g, '\\n').replace(/\r/g, '\\r');
}

const CEF_SEVERITY: Record<string, number> = { A: 3, K: 3, R: 6, F: 3 };
const CEF_ACT: Record<string, string> = { A: 'accept', K: 'accept', R: 'reject', F: 'finish' };

/** One record as a CEF line (without its newline). */
export function toCef(r: Rec): string {
  const etype = String(r.etype);
  const sig = ACTIONS[etype] ?? `sudo-${etype}`;
  const ext: Array<[string, string | number | undefined]> = [
    ['rt', timeMs(r)],
    ['externalId', r.recnum === undefined ? undefined : String(r.recnum)],
    ['act', CEF_ACT[etype] ?? etype],
    ['outcome', outcomeOf(r)],
    ['suser', text(r.submituser)],
    ['duser', text(r.runuser)],
    ['shost', text(r.submithost)],
    ['dhost', text(r.runhost) ?? text(r.submithost)],
    ['dproc', text(r.runcommand)],
    ['reason', text(r.reason)],
    ['cs1Label', 'uniqueid'],
    ['cs1', text(r.uniqueid)],
    ['cs2Label', 'commandLine'],
    ['cs2', commandLine(r)],
    ['cs3Label', 'cwd'],
    ['cs3', text(r.cwd)],
    ['cs4Label', 'iolog'],
    ['cs4', text(r.iolog)],
    ['cs5Label', 'exitstatus'],
    ['cs5', text(r.exitstatus)],
    ['cn1Label', 'exitcode'],
    ['cn1', etype === 'F' ? exitCode(r) : undefined],
  ];
  // A label without its value says nothing: both go, or neither.
  const present = new Set(ext.filter(([, v]) => v !== undefined).map(([k]) => k));
  const parts = ext.filter(([k, v]) => v !== undefined && (!k.endsWith('Label') || present.has(k.slice(0, -'Label'.length))));
  const extension = parts.map(([k, v]) => `${k}=${cefValue(String(v))}`).join(' ');
  const header = ['CEF:0', PRODUCT.vendor, PRODUCT.name, PRODUCT.version, sig, NAMES[etype] ?? etype, String(CEF_SEVERITY[etype] ?? 3)].map((h, i) => (i === 0 ? h : cefHeader(h)));
  return `${header.join('|')}|${extension}`;
}
