// GET /REST/iolog/screen?file=&at=[&cells=1] : the screen of a session at a moment, from the
// nearest keyframe of its seek index (src/iolog/seek.ts) — the player's seek. GET
// /REST/iolog/session?iolog= : a keystroke event's session (src/iolog/event-session.ts). GET
// /REST/iolog/events?file= : the other way, a session's accept and finish records.
import { iologEventSession, iologScreen } from '../iolog.js';
import { iologEvents } from '../session-events.js';
import { jsonOk } from '../json-answer.js';
import { flagParam, textParam } from '../param-schema.js';
import { IOLOG_VERSIONS, sessionFileParam } from './iolog-common.js';
import type { Route } from '../types.js';

export const seekRoutes: Route[] = [
  {
    method: 'GET',
    path: '/iolog/screen',
    versions: IOLOG_VERSIONS,
    writes: false,
    summary: 'The screen of a session at a time: text rows, cursor, a repaint for a terminal, and the data-stream offset to continue from',
    params: {
      file: sessionFileParam(),
      at: textParam('seconds from the session start, decimal (default: the end)'),
      cells: flagParam('1 adds every cell (text, width, and colours and flags when not the default) row by row', 'IOLOG_BAD_NUMBER'),
      cellrows: textParam('with cells=1: FIRST-LAST, the rows (0-based) whose cells are answered (default every row; at most 250000 cells an answer)'),
    },
    async handler(req, engine) {
      const s = await iologScreen(engine, req.query, req.signal, { unredacted: req.unredacted === true });
      const { warnings, ...body } = s;
      return jsonOk({ ...body, ...(warnings.length ? { warnings } : {}) });
    },
  },
  {
    method: 'GET',
    path: '/iolog/session',
    versions: IOLOG_VERSIONS,
    writes: false,
    summary: "The session a keystroke (K) event's iolog field points at: its path relative to its root (for file=) and its identity",
    params: {
      iolog: textParam("the K record's iolog field (the session's path as sudo wrote it)"),
      time: textParam("the record's time (Unix seconds): chooses among the directories sudo 1.9.13's unexpanded …XXXXXX template could name"),
    },
    async handler(req, engine) {
      return jsonOk({ session: await iologEventSession(engine, req.query) });
    },
  },
  {
    method: 'GET',
    path: '/iolog/events',
    versions: IOLOG_VERSIONS,
    writes: false,
    summary: "A session's accept (keystroke), reject and finish records: linked by uuid, else by the records' iolog path, else by submit time, user, host and command",
    params: {
      file: sessionFileParam(),
      format: textParam('the event log to look in: ff (with log=PATH), db (log= optional: a database the settings name or an SQLite file) or odbc (with dsn=); default: the configured flat-file event log (eventlog)'),
      log: textParam('the event log (format=ff: its file; format=db: its name or SQLite file); file= names the session'),
      dsn: textParam('format=odbc: the ODBC data source'),
    },
    async handler(req, engine) {
      return jsonOk({ ...(await iologEvents(engine, req.query, req.signal ? { signal: req.signal } : {})) });
    },
  },
];
