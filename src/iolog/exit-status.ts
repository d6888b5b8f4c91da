// How a recorded command ended, as the session's own description says it: sudo_logsrvd (and
// sudo with a log server) adds `exit_value`, `signal` and `dumped_core` to log.json when the
// command finishes. Worded as sudo's event log words it, so the session list and the event
// records read alike; '' when the description has no exit fields (a session still running, or
// a sudo that does not write them: the finish event of the event log then tells).
import type { Variables } from './log-info.js';

export function exitStatusOf(v: Variables): string {
  const signal = typeof v.signal === 'string' && v.signal ? v.signal : null;
  const core = v.dumped_core === true;
  if (signal) return `Command killed by signal ${signal}${core ? ' (core dumped)' : ''}`;
  const code = typeof v.exit_value === 'number' ? v.exit_value : typeof v.exit_value === 'string' && /^\d+$/.test(v.exit_value) ? Number(v.exit_value) : null;
  return code === null ? '' : `Command finished with exit status ${code}`;
}
