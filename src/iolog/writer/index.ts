// The writer of sudo I/O log sessions (the log server's storage): what the protocol side uses.
export { createIologSession, reopenIologSession } from './session-writer.js';
export type { ExitInfo, InfoValue, IologSession, IologWriterOptions, IoStream, TimeSpec } from './types.js';
