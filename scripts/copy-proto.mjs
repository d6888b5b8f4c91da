// Copies the vendored protobuf schema of sudo's log-server protocol next to its compiled reader
// (dist/logsrvd/), which parses it at start-up; tsc copies only TypeScript.
import { copyFileSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
mkdirSync(`${root}dist/logsrvd`, { recursive: true });
copyFileSync(`${root}src/logsrvd/log_server.proto`, `${root}dist/logsrvd/log_server.proto`);
