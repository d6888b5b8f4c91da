// PostgreSQL URLs as evio names them: without pg loaded, so naming a store costs no start-up.
import { userInfo } from 'node:os';

/** The URL with its password replaced by `***`, for names, messages and logs. */
export function redactUrl(url: string): string {
  return url.replace(/^(postgres(?:ql)?:\/\/[^:@/]*):[^@/]*@/, '$1:***@');
}

/** The name of the process's effective user (getpwuid(geteuid())); undefined when it has none. */
export function effectiveUserName(osUserName: () => string = () => userInfo().username): string | undefined {
  try {
    return osUserName() || undefined;
  } catch {
    return undefined; // no passwd entry: the server's "no user name" answer says so
  }
}

/**
 * The user name libpq connects as when the URL names none: `PGUSER`, else the effective
 * user's name (as psql does) — not `$USER`, which cron and systemd units do not set.
 */
export function libpqDefaultUser(env: NodeJS.ProcessEnv, osUserName?: () => string): string | undefined {
  return env.PGUSER || effectiveUserName(osUserName);
}
