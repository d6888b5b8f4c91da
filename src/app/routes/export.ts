// GET /REST/iolog/export?file=&format=asciicast[&raw=1] : a session as an asciicast file, the
// answer `evio iolog export` writes, streamed with backpressure. It reads through the redaction
// rules unless the app may see the data as recorded (docs/iolog.md, "Redaction on the way out").
import { PassThrough } from 'node:stream';
import { iologExport } from '../iolog.js';
import { enumParam, flagParam } from '../param-schema.js';
import type { Route } from '../types.js';
import { IOLOG_VERSIONS, sessionFileParam } from './iolog-common.js';

export const exportRoutes: Route[] = [
  {
    method: 'GET',
    path: '/iolog/export',
    versions: IOLOG_VERSIONS,
    writes: false,
    summary: 'A session as an asciicast file (output events filtered for a terminal unless raw=1; redacted per app)',
    params: {
      file: sessionFileParam(),
      format: enumParam('the export format (required)', ['asciicast'], 'IOLOG_BAD_EXPORT_FORMAT'),
      raw: flagParam('1: output events as recorded, not filtered for the viewer\'s terminal', 'IOLOG_BAD_NUMBER'),
    },
    async handler(req, engine) {
      const out = new PassThrough();
      let opened!: () => void;
      const ready = new Promise<void>((resolve) => (opened = resolve));
      // The export writes into `out` as the client reads it; a bad request fails before `out` is opened, as JSON.
      const done = iologExport(
        engine,
        req.query,
        () => {
          opened();
          return out;
        },
        req.signal,
        { unredacted: req.unredacted === true },
      );
      await Promise.race([ready, done]);
      done.then(
        () => out.end(),
        (err: unknown) => out.destroy(err as Error),
      );
      const file = String(req.query.file ?? 'session');
      const name = `${file.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'session'}.cast`;
      return { kind: 'file', http: 200, contentType: 'application/x-asciicast', filename: name, stream: out };
    },
  },
];
