// Where the real sudo/asciinema samples are: $EVIO_SAMPLES, else shared/samples beside the
// repository (as CI lays it out). Resolved through symlinks, as the engine resolves every path.
import { existsSync, realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const raw = process.env.EVIO_SAMPLES ?? resolve(fileURLToPath(new URL('../../', import.meta.url)), '../shared/samples');
export const SAMPLES = existsSync(raw) ? realpathSync(raw) : raw;
