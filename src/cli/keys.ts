// `evio keys add|list|remove|rotate`: manage the keystore (docs/auth.md). Keys are printed once,
// when made; `list` shows them only with --show-key. A running server picks changes up on its
// next call.
import { evioError } from '../errors.js';
import { checkAppid, DEFAULT_RATE_LIMIT, findApp, newKey, parseRoutePattern, readKeystoreOrEmpty, writeKeystore, type AppEntry } from '../keystore.js';
import { parseFlags, strFlag, wantsHelp, type ParsedFlags } from './flags.js';
import { usageError, type CliCommand, type CliIo } from './io.js';
import { noteOutcome } from './audit.js';

const HELP = `Usage: evio keys add APPID [--route 'METHOD /path']... [--read-only] [--unredacted] [--rate-limit N] [--legacy-md5]
       evio keys list [--show-key] [--json]
       evio keys remove APPID
       evio keys rotate APPID
Common option: --keystore FILE (default: the settings' keystore, <data folder>/keystore.json)

add      creates an app with a random key and prints the key once
         --route     a route the app may call, e.g. 'GET /events' or '* /iolog/*' (repeatable;
                     none = every route)
         --read-only refuse routes that change data (DELETE)
         --unredacted the app reads I/O logs as recorded when redaction rules are set (default: redacted)
         --rate-limit calls per minute (default ${DEFAULT_RATE_LIMIT}; 0 = unlimited)
         --legacy-md5 also accept the weaker HMAC-MD5 of appid+timestamp (old clients)
list     the apps, their limits and creation times (keys only with --show-key)
remove   deletes an app: its calls are refused at once
rotate   gives an app a new random key (printed once); the old key stops working at once

Example:
  evio keys add auditor --route 'GET /events' --route 'GET /events/destinations' --read-only`;

function keystorePath(f: ParsedFlags, io: CliIo): string {
  return strFlag(f, 'keystore') ?? io.settings().keystore;
}

function oneAppid(f: ParsedFlags, verb: string): string {
  const [appid, ...extra] = f.positionals;
  if (!appid || extra.length) throw usageError(`keys ${verb} needs exactly one APPID\n\n${HELP}`);
  checkAppid(appid);
  return appid;
}

function describe(appid: string, app: AppEntry, showKey: boolean): string {
  const parts = [
    appid,
    app.scheme,
    app.readOnly ? 'read-only' : 'read-write',
    `${app.rateLimit ?? DEFAULT_RATE_LIMIT}/min`,
    app.routes ? `routes: ${app.routes.join(', ')}` : 'routes: all',
    `created ${app.created || '?'}`,
  ];
  if (showKey) parts.push(`key ${app.key}`);
  return parts.join('  ');
}

export const keysCommand: CliCommand = {
  name: 'keys',
  summary: 'manage the keystore: add, list, remove, rotate app keys',
  async run(argv, io) {
    const [verb, ...rest] = argv;
    if (!verb || wantsHelp(argv, HELP, io.out)) {
      if (!verb) io.err.write(`${HELP}\n`);
      return verb ? 0 : 2;
    }
    const f = parseFlags(rest, { command: `keys ${verb}`, values: ['keystore', 'route', 'rate-limit'], repeatable: ['route'], switches: ['read-only', 'unredacted', 'legacy-md5', 'show-key', 'json'], positionals: 1 });
    const path = keystorePath(f, io);
    switch (verb) {
      case 'add': {
        const appid = oneAppid(f, 'add');
        const ks = readKeystoreOrEmpty(path);
        if (findApp(ks, appid)) throw evioError('KEYSTORE_APP_EXISTS', `keystore ${path} already has an app "${appid}"; use evio keys rotate ${appid} for a new key`);
        const rawRoutes = f.flags.route;
        const routes = rawRoutes === undefined ? undefined : Array.isArray(rawRoutes) ? rawRoutes : [rawRoutes];
        for (const r of routes ?? []) if (!parseRoutePattern(r)) throw usageError(`--route "${r}" is not METHOD /path (METHOD: GET, DELETE, POST, PUT or *; path may end in /*)`);
        const rate = strFlag(f, 'rate-limit');
        if (rate !== undefined && !/^\d+$/.test(rate)) throw usageError('--rate-limit must be a whole number of calls per minute');
        const key = newKey();
        const app: AppEntry = { key, scheme: f.bools.has('legacy-md5') ? 'hmac-md5-legacy' : 'hmac-sha256', created: new Date().toISOString() };
        if (routes) app.routes = routes;
        if (f.bools.has('read-only')) app.readOnly = true;
        if (f.bools.has('unredacted')) app.unredacted = true;
        if (rate !== undefined) app.rateLimit = Number(rate);
        ks.apps[appid] = app;
        writeKeystore(path, ks);
        noteOutcome(io, `added app ${appid}`, { keystore: path, appid });
        io.err.write(`added app ${appid} to ${path}; its key is shown once:\n`);
        io.out.write(`${key}\n`);
        return 0;
      }
      case 'list': {
        const ks = readKeystoreOrEmpty(path);
        const show = f.bools.has('show-key');
        if (f.bools.has('json')) {
          const apps = Object.fromEntries(Object.entries(ks.apps).map(([id, a]) => [id, show ? a : { ...a, key: undefined }]));
          io.out.write(`${JSON.stringify({ keystore: path, apps })}\n`);
        } else {
          const ids = Object.keys(ks.apps).sort();
          if (!ids.length) io.err.write(`keystore ${path} has no apps; add one with evio keys add APPID\n`);
          for (const id of ids) io.out.write(`${describe(id, findApp(ks, id)!, show)}\n`);
        }
        return 0;
      }
      case 'remove': {
        const appid = oneAppid(f, 'remove');
        const ks = readKeystoreOrEmpty(path);
        if (!findApp(ks, appid)) throw evioError('KEYSTORE_UNKNOWN_APP', `keystore ${path} has no app "${appid}"`);
        delete ks.apps[appid];
        writeKeystore(path, ks);
        noteOutcome(io, `removed app ${appid}`, { keystore: path, appid });
        io.err.write(`removed app ${appid} from ${path}\n`);
        return 0;
      }
      case 'rotate': {
        const appid = oneAppid(f, 'rotate');
        const ks = readKeystoreOrEmpty(path);
        const app = findApp(ks, appid);
        if (!app) throw evioError('KEYSTORE_UNKNOWN_APP', `keystore ${path} has no app "${appid}"`);
        app.key = newKey();
        app.created = new Date().toISOString();
        writeKeystore(path, ks);
        noteOutcome(io, `rotated the key of app ${appid}`, { keystore: path, appid });
        io.err.write(`new key for app ${appid} in ${path}; the old key no longer works; the new one is shown once:\n`);
        io.out.write(`${app.key}\n`);
        return 0;
      }
      default:
        throw usageError(`keys takes add, list, remove or rotate, not "${verb}"\n\n${HELP}`);
    }
  },
};
