// GET /REST/iolog/export?file=&format=asciicast|text[&raw=1] : a session as an asciicast file
// (asciinema plays it) or a text transcript, the answer `evio iolog export` writes, streamed with
// backpressure as an attachment while it is made (the console's download buttons). It reads
// through the redaction rules unless the app may see the data as recorded (docs/iolog.md,
// "Redaction on the way out"). A bad format or a session that cannot be opened is a JSON error,
// before the first byte.
import { basename } from 'node:path';
import { PassThrough } from 'node:stream';
import { iologExport } from '../iolog.js';
import { enumParam, flagParam } from '../param-schema.js';
import type { Route } from '../types.js';
import { IOLOG_VERSIONS, sessionFileParam } from './iolog-common.js';

function attachmentName(file: string, format: string): string {
  const base = file.replace(/\/+$/, '').split('/').filter(Boolean).slice(-3).join('-') || basename(file) || 'session';
  return `${base.replace(/[^\w.-]/g, '_')}.${format === 'text' ? 'txt' : 'cast'}`;
}

export const exportRoutes: Route[] = [
  {
    method: 'GET',
    path: '/iolog/export',
    versions: IOLOG_VERSIONS,
    writes: false,
    summary: 'A session as an asciicast file (format=asciicast; output events filtered for a terminal unless raw=1) or a text transcript of what its output showed (format=text); redacted per app',
    params: {
      file: sessionFileParam(),
      format: enumParam('asciicast (asciinema v2, v3 for a v3 cast) or text (the lines the output showed, each after its time); required', ['asciicast', 'text'], 'IOLOG_BAD_EXPORT_FORMAT'),
      raw: flagParam('asciicast: 1 keeps the output events as recorded, not filtered for the viewer\'s terminal', 'IOLOG_BAD_NUMBER'),
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
      const format = String(req.query.format);
      return { kind: 'file', http: 200, contentType: format === 'text' ? 'text/plain; charset=utf-8' : 'application/x-asciicast', filename: attachmentName(String(req.query.file ?? 'session'), format), stream: out };
    },
  },
];
