// I/O-log routes (spec document 1, "I/O logs"): parse, call the engine, stream the answer.
// The heavy work runs in the worker pool behind the engine functions of src/iolog/service.ts.
import { evioError } from '../../errors.js';
import {
  iologChunk,
  iologCommands,
  iologDownload,
  iologListPage,
  iologListDirectory,
  iologSearch,
  iologVariables,
  matchingPaths,
  SearchAnswer,
} from '../iolog.js';
import { jsonArrayResponse, jsonOk } from '../json-answer.js';
import { iologFollow, type FollowEvent } from '../iolog-follow.js';
import { enumParam, flagParam, numberParam, repeatableParams, textParam, wildcardParam } from '../param-schema.js';
import { IOLOG_VERSIONS, sessionFileParam } from './iolog-common.js';
import type { ApiResponse, ParamSpec, Route } from '../types.js';
import { hideRoots, publicPath } from '../../paths.js';

/** One server-sent event's text (JSON data holds no newline). */
function sseText(e: FollowEvent): string {
  if (e.event === 'ping') return ': ping\n\n';
  return `event: ${e.event}\n${e.event === 'chunk' ? `id: ${e.id}\n` : ''}data: ${e.data}\n\n`;
}

/** A chunk's frame, encoded once for all the followers given the same piece. */
const sharedFrames = new WeakMap<object, Buffer>();

async function* sse(events: AsyncIterable<FollowEvent>): AsyncGenerator<string | Buffer> {
  for await (const e of events) {
    if (e.event !== 'chunk') {
      yield sseText(e);
      continue;
    }
    let frame = sharedFrames.get(e.shared);
    if (!frame) {
      frame = Buffer.from(sseText(e), 'utf8');
      sharedFrames.set(e.shared, frame);
    }
    yield frame;
  }
}

async function* each<T>(items: readonly T[]): AsyncGenerator<T> {
  yield* items;
}

function has(v: string | string[] | undefined): boolean {
  return v !== undefined && v !== '' && !(Array.isArray(v) && v.length === 0);
}

/** The I/O-log calls answer a bad number or flag with IOLOG_BAD_NUMBER. */
const number = (description: string) => numberParam(description, 'IOLOG_BAD_NUMBER');
const ioFlag = (description: string) => flagParam(description, 'IOLOG_BAD_NUMBER');

const CHUNK_PARAMS: Record<string, ParamSpec> = {
  file: textParam('a sudo session directory or asciicast file under an I/O log root (chunking)'),
  start: number('first byte of the data stream (default 0)'),
  at: textParam('instead of start: seconds from the session start (decimal); the chunk starts at the data-stream position of that time'),
  len: number('bytes of the data stream (default 65536, at most 1048576)'),
  path: textParam('a directory under an I/O log root to list (instead of file)'),
  filter: textParam('directory listing: regular expression the entry names must match'),
};

/** GET /iolog/list: the session-list filters (sudoreplay -l's), paging and refresh. */
export const IOLOG_LIST_PARAMS: Record<string, ParamSpec> = {
  path: textParam('glob on the session path, absolute or relative to its root'),
  from: textParam('created on or after (yyyy-mm-dd HH:MM, other date forms, Unix seconds, now, today, yesterday, -7d, -2h, -30m)'),
  to: textParam('created on or before (a date alone, today and yesterday mean the whole day)'),
  runhost: wildcardParam('wildcard'),
  submithost: wildcardParam('wildcard'),
  submituser: wildcardParam('wildcard'),
  runuser: wildcardParam('wildcard'),
  runcmd: wildcardParam('wildcard on the command line (command path and arguments)'),
  runargv: wildcardParam('wildcard on the argument vector as run (argv[0] as typed), joined by spaces'),
  cwd: wildcardParam('wildcard on the directory the command ran in'),
  tty: wildcardParam('wildcard on the terminal (e.g. /dev/pts/0; empty when there was none)'),
  match: enumParam('all: every filter must match (default); any: one filter is enough (from-to is one filter)', ['all', 'any'], 'IOLOG_BAD_MATCH', { anyCase: true, allowEmpty: true, default: 'all' }),
  sort: enumParam('sort by: createtime (default), end (start + duration), duration, submituser, submithost, runuser, runhost, runcmd, exitstatus or logpath; then by logpath', ['createtime', 'end', 'duration', 'submituser', 'submithost', 'runuser', 'runhost', 'runcmd', 'exitstatus', 'logpath'], 'IOLOG_BAD_SORT', { allowEmpty: true, default: 'createtime' }),
  order: enumParam('asc (default) or desc', ['asc', 'desc'], 'IOLOG_BAD_SORT', { anyCase: true, allowEmpty: true, default: 'asc' }),
  start: number('records to skip (default 0)'),
  len: number('records to return (default 1000, at most 10000); a page it cuts ends with more=true and next={start}'),
  refresh: ioFlag('1 updates the index first; 0 never; default: unless it is current'),
};

/** The list parameters that may be repeated (the wildcards): the CLI's repeatable flags. */
export const IOLOG_LIST_REPEATABLE: readonly string[] = repeatableParams(IOLOG_LIST_PARAMS);

export const iologRoutes: Route[] = [
  {
    method: 'GET',
    path: '/iolog',
    versions: IOLOG_VERSIONS,
    writes: false,
    summary: 'A chunk of a session (file=) or a directory listing (path=)',
    params: CHUNK_PARAMS,
    async handler(req, engine): Promise<ApiResponse> {
      if (has(req.query.file)) {
        const c = await iologChunk(engine, req.query, req.signal, { unredacted: req.unredacted === true });
        return jsonArrayResponse('log', each(c.items), { file: publicPath(engine.settings.iologdirs, c.file), bytes: c.bytes, ...(c.at !== undefined ? { at: c.at } : {}), start: c.start, len: c.len }, () => (c.warnings.length ? { warnings: c.warnings.map((w) => hideRoots(engine.settings.iologdirs, w)) } : {}));
      }
      if (has(req.query.path)) {
        const l = await iologListDirectory(engine, req.query, req.signal);
        const roots = engine.settings.iologdirs;
        return jsonArrayResponse('dir', each(l.entries.map((e) => ({ ...e, path: publicPath(roots, e.path) }))), {}, () => (l.truncated ? { truncated: true } : {}));
      }
      throw evioError('IOLOG_PARAMETER_REQUIRED', 'give file (a session to chunk) or path (a directory to list)');
    },
  },
  {
    method: 'GET',
    path: '/iolog/variables',
    versions: IOLOG_VERSIONS,
    writes: false,
    summary: 'Every variable of a session (log.json, legacy log or asciicast header)',
    params: { file: sessionFileParam() },
    async handler(req, engine) {
      const v = await iologVariables(engine, req.query, req.signal);
      return jsonOk({ log: v.variables });
    },
  },
  {
    method: 'GET',
    path: '/iologfile',
    versions: IOLOG_VERSIONS,
    writes: false,
    summary: 'Raw download: a file as is, a session directory as tar',
    params: { file: textParam('a file or sudo session directory under an I/O log root') },
    async handler(req, engine) {
      const d = await iologDownload(engine, req.query, req.signal, { unredacted: req.unredacted === true });
      return { kind: 'file', http: 200, contentType: d.contentType, filename: d.filename, stream: d.stream, ...(d.size !== undefined ? { size: d.size } : {}) };
    },
  },
  {
    method: 'GET',
    path: '/iolog/search',
    versions: IOLOG_VERSIONS,
    writes: false,
    summary: 'Sessions whose text matches KEYWORD:REGEX within one line',
    params: {
      file: textParam('glob naming sessions, absolute or relative to each I/O log root (e.g. **, 00/00/*)'),
      query: textParam('KEYWORD:REGEX; KEYWORD = stdin, stdout, stderr, ttyin, ttyout, input, output or any; REGEX starting with (?i) is case-insensitive'),
      detail: ioFlag('1 adds the matching lines with their times (time: ms since the start; at: seconds for the screen call)'),
      from: IOLOG_LIST_PARAMS.from!,
      to: IOLOG_LIST_PARAMS.to!,
      submituser: IOLOG_LIST_PARAMS.submituser!,
      submithost: IOLOG_LIST_PARAMS.submithost!,
      runuser: IOLOG_LIST_PARAMS.runuser!,
      runhost: IOLOG_LIST_PARAMS.runhost!,
    },
    async handler(req, engine) {
      const run = await iologSearch(engine, req.query, req.signal, { unredacted: req.unredacted === true });
      const answer = new SearchAnswer();
      // Sessions named relative to their root, never by the server's absolute paths.
      const roots = engine.settings.iologdirs;
      async function* named(): AsyncGenerator<string> {
        for await (const p of matchingPaths(run, answer)) yield publicPath(roots, p);
      }
      return jsonArrayResponse('iologs', named(), {}, () => {
        const t = answer.tail(run.detail);
        if (Array.isArray(t.detail)) t.detail = (t.detail as Array<{ file: string }>).map((d) => ({ ...d, file: publicPath(roots, d.file) }));
        if (Array.isArray(t.warnings)) t.warnings = (t.warnings as string[]).map((w) => hideRoots(roots, w));
        return t;
      });
    },
  },
  {
    method: 'GET',
    path: '/iolog/commands',
    versions: IOLOG_VERSIONS,
    writes: false,
    summary: 'The command timeline of a session: lines typed, when, where, the next prompt, the exit status',
    params: { file: sessionFileParam() },
    async handler(req, engine) {
      const c = await iologCommands(engine, req.query, req.signal, { unredacted: req.unredacted === true });
      const tail: Record<string, unknown> = {};
      if (c.exit) tail.exit = c.exit;
      if (c.truncated) tail.truncated = true;
      if (c.warnings.length) tail.warnings = c.warnings;
      return jsonArrayResponse('log', each(c.log), { file: c.file }, () => tail);
    },
  },
  {
    method: 'GET',
    path: '/iolog/follow',
    versions: IOLOG_VERSIONS,
    writes: false,
    summary: 'Follow a session while it is written: server-sent events with what is appended from a position on, and an end mark',
    produces: 'text/event-stream',
    params: {
      file: sessionFileParam(),
      start: number('data-stream position to follow from (default 0); a screen call\'s offset for "from now"'),
    },
    async handler(req, engine) {
      const f = await iologFollow(engine, req.query, req.signal, { unredacted: req.unredacted === true });
      return { kind: 'event-stream', http: 200, events: sse(f.events) };
    },
  },
  {
    method: 'GET',
    path: '/iolog/list',
    versions: IOLOG_VERSIONS,
    writes: false,
    summary: 'The cached list of sessions (SQLite index of the I/O log roots)',
    params: IOLOG_LIST_PARAMS,
    async handler(req, engine) {
      const page = await iologListPage(engine, req.query, req.signal);
      const roots = engine.settings.iologdirs;
      const rows = page.result.map((r) => (typeof r.logpath === 'string' ? { ...r, logpath: publicPath(roots, r.logpath) } : r));
      return jsonArrayResponse('result', each(rows), {}, () => (page.more ? { more: true, next: page.next } : {}));
    },
  },
];
