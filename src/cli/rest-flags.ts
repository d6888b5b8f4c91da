// The flags of the event commands whose flags are the REST parameters of their call
// (`events query|delete|export|purge STORE --runuser root --verbose`).
import { EVENT_FLAG_PARAMS, EVENT_REPEATABLE_PARAMS } from '../app/routes/events.js';
import type { FlagSpec } from './flags.js';

/** The flags of a command whose flags are the REST parameters of its call. */
export function restFlags(command: string, params: readonly string[], extra: Partial<FlagSpec> = {}): FlagSpec {
  const switches = EVENT_FLAG_PARAMS.filter((p) => params.includes(p));
  return {
    command,
    values: [...params.filter((p) => !switches.includes(p) && !['format', 'file', 'dsn'].includes(p)), ...(extra.values ?? [])],
    paramSwitches: switches,
    // --runuser root --runuser admin: alternatives, as a repeated REST parameter.
    repeatable: [...EVENT_REPEATABLE_PARAMS.filter((p) => params.includes(p)), ...(extra.repeatable ?? [])],
    switches: extra.switches ?? [],
    short: { n: 'limit', ...extra.short },
    positionals: extra.positionals ?? 1,
  };
}
