// What the I/O-log routes (iolog.ts, replay.ts, seek.ts) share: the API versions they answer
// under, and the parameter naming one session.
import { textParam } from '../param-schema.js';

/** /REST/iolog/..., /REST/v2/iolog/... and /REST/v2.0/iolog/... */
export const IOLOG_VERSIONS = ['', 'v2', 'v2.0'] as const;

/** `file`: one session, as a sudo session directory or an asciicast file under a root. */
export const sessionFileParam = () => textParam('a sudo session directory or asciicast file under an I/O log root');
