// The command groups, in the order --help lists them. Each module is loaded only when its
// command runs: `evio events query` from cron should not pay for fastify and Swagger UI
// (measured in BENCHMARKS.md: start-up was ~600 ms over bare Node with everything loaded).
import type { CliCommand } from './io.js';

function lazy(name: string, summary: string, load: () => Promise<CliCommand>): CliCommand {
  return { name, summary, run: async (argv, io) => (await load()).run(argv, io) };
}

export const commands: CliCommand[] = [
  lazy('serve', 'run the REST service (HTTPS, signed calls, OpenAPI at /docs)', async () => (await import('./serve.js')).serveCommand),
  lazy('logsrvd', 'receive sudo event and I/O logs over sudo\'s log-server protocol (replaces sudo_logsrvd)', async () => (await import('./logsrvd.js')).logsrvdCommand),
  lazy('rest', 'sign and send one REST call to a running service, print the JSON', async () => (await import('./rest.js')).restCommand),
  lazy('keys', 'manage the keystore: add, list, remove, rotate app keys', async () => (await import('./keys.js')).keysCommand),
  lazy('demo', 'fill the default data folder and answer sample queries (flat file + SQLite)', async () => (await import('./demo.js')).demoCommand),
  lazy('call', 'run one REST request in-process (no signature) and print the JSON', async () => (await import('./call.js')).callCommand),
  lazy('events', 'query, append, copy, delete, import, export, purge, rotate and index event records', async () => (await import('./events.js')).eventsCommand),
  lazy('iolog', 'I/O logs: chunk, variables, ls, search, list, index, export, replay, screen', async () => (await import('./iolog.js')).iologCommand),
  lazy('redact', 'test redaction rules on a session or a file: evio redact test RULES FILE', async () => (await import('./redact.js')).redactCommand),
  lazy('generate', 'write deterministic synthetic event logs or I/O log sessions', async () => (await import('./generate.js')).generateCommand),
];
