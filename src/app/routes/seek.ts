// GET /REST/iolog/screen?file=&at=[&cells=1] : the screen of a session at a moment, from the
// nearest keyframe of its seek index (src/iolog/seek.ts) — the player's seek. GET
// /REST/iolog/session?iolog= : a keystroke event's session (src/iolog/event-session.ts).
import { iologEventSession, iologScreen } from '../iolog.js';
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
    },
    async handler(req, engine) {
      const s = await iologScreen(engine, req.query, req.signal);
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
    params: { iolog: textParam("the K record's iolog field (the session's path as sudo wrote it)") },
    async handler(req, engine) {
      return jsonOk({ session: await iologEventSession(engine, req.query) });
    },
  },
];
