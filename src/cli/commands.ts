// The command groups, in the order --help lists them.
import { callCommand } from './call.js';
import { demoCommand } from './demo.js';
import { eventsCommand } from './events.js';
import { generateCommand } from './generate.js';
import type { CliCommand } from './io.js';

export const commands: CliCommand[] = [demoCommand, callCommand, eventsCommand, generateCommand];
