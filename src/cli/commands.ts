// The command groups, in the order --help lists them.
import type { CliCommand } from './io.js';

export const commands: CliCommand[] = [];
