// GET /REST/iolog/export?file=&format=asciicast|text[&raw=1] : a session as an asciicast file
// (asciinema plays it) or a text transcript, streamed as an attachment while it is made (the
// console's download buttons; `evio iolog export` is the same use case on the command line).
// A bad format or a session that cannot be opened is a JSON error, before the first byte.
import { basename } from 'node:path';
import { PassThrough } from 'node:stream';
import { iologExport } from '../iolog.js';
import { enumParam, flagParam } from '../param-schema.js';
import { IOLOG_VERSIONS, sessionFileParam } from './iolog-common.js';
import type { Route } from '../types.js';

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
    summary: 'A session as an asciicast file (format=asciicast) or a text transcript of what its output showed (format=text), streamed',
    params: {
      file: sessionFileParam(),
      format: enumParam('asciicast (asciinema v2, v3 for a v3 cast) or text (the lines the output showed, each after its time)', ['asciicast', 'text'], 'IOLOG_BAD_EXPORT_FORMAT'),
      raw: flagParam('asciicast: 1 keeps the output as recorded (no terminal filter)', 'IOLOG_BAD_NUMBER'),
    },
    async handler(req, engine) {
      const out = new PassThrough();
      let opened!: () => void;
      const ready = new Promise<void>((r) => (opened = r));
      const done = iologExport(
        engine,
        req.query,
        () => {
          opened();
          return out;
        },
        req.signal,
      );
      // Errors before the output opens (bad format, no such session) answer as JSON.
      await Promise.race([ready, done]);
      done.then(
        () => out.end(),
        (err: Error) => out.destroy(err),
      );
      const format = String(req.query.format);
      return { kind: 'file', http: 200, contentType: format === 'text' ? 'text/plain; charset=utf-8' : 'application/x-asciicast', filename: attachmentName(String(req.query.file), format), stream: out };
    },
  },
];
