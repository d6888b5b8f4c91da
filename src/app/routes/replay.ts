// GET /REST/iolog/replay?file=&term=&start=&len= : a session's byte range as replay items
// ({type:"token", name, values?} | {type:"text", time, value}). Thin: the engine function
// (src/iolog/replay.ts) validates and tokenizes in the worker pool.
import { iologReplay } from '../iolog.js';
import { jsonArrayResponse } from '../json-answer.js';
import { numberParam, textParam } from '../param-schema.js';
import { IOLOG_VERSIONS, sessionFileParam } from './iolog-common.js';
import type { ApiResponse, Route } from '../types.js';

async function* each<T>(items: readonly T[]): AsyncGenerator<T> {
  yield* items;
}

export const replayRoutes: Route[] = [
  {
    method: 'GET',
    path: '/iolog/replay',
    versions: IOLOG_VERSIONS,
    writes: false,
    summary: 'A byte range of a session as replay tokens (terminfo capability names) and text',
    params: {
      file: sessionFileParam(),
      term: textParam('terminfo entry naming the tokens (default: the session TERM, else xterm-256color)'),
      start: numberParam('first byte of the data stream (default 0)', 'IOLOG_BAD_NUMBER'),
      len: numberParam('bytes of the data stream (default 65536, at most 1048576)', 'IOLOG_BAD_NUMBER'),
    },
    async handler(req, engine): Promise<ApiResponse> {
      const run = await iologReplay(engine, req.query, req.signal, { unredacted: req.unredacted === true });
      return jsonArrayResponse('log', each(run.items), { file: run.file, term: run.term, start: run.start, len: run.len, bytes: run.bytes }, () =>
        run.warnings.length ? { warnings: [...run.warnings] } : {},
      );
    },
  },
];
