// The command groups, in the order --help lists them.
import { callCommand } from './call.js';
import { demoCommand } from './demo.js';
import { eventsCommand } from './events.js';
import { generateCommand } from './generate.js';
import { iologCommand } from './iolog.js';
import { keysCommand } from './keys.js';
import { restCommand } from './rest.js';
import { serveCommand } from './serve.js';
import type { CliCommand } from './io.js';

export const commands: CliCommand[] = [serveCommand, restCommand, keysCommand, demoCommand, callCommand, eventsCommand, iologCommand, generateCommand];
