// The command groups, in the order --help lists them.
import { callCommand } from './call.js';
import { eventsCommand } from './events.js';
import { generateCommand } from './generate.js';
import type { CliCommand } from './io.js';

export const commands: CliCommand[] = [callCommand, eventsCommand, generateCommand];
