// Synthetic sudo sessions that look like real work: a shell prompt, commands typed key by key
// and echoed by the tty, their output, the next prompt. Two uses:
//   - writeEventSession: the session a generated keystroke (K) event points at, with the
//     event's uniqueid, users, hosts, command and working directory (evio generate events
//     --iolog-root, evio demo), so an auditor can go from the event to what was done;
//   - writeLongSession: one session of any size (the seek benchmark's 1 GB recording), written
//     record by record with bounded memory.
// Files are plain (not gzip), finished (timing without write bits), as sudo leaves them.
import { chmodSync, closeSync, mkdirSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { prng } from '../prng.js';

const STREAMS = ['stdin', 'stdout', 'stderr', 'ttyin', 'ttyout'] as const;
type Stream = (typeof STREAMS)[number];

/** Appends timing records and stream bytes to a session directory, buffered per file. */
class SessionWriter {
  private readonly fds = new Map<string, number>();
  private readonly bufs = new Map<string, string[]>();
  private readonly sizes = new Map<string, number>();
  /** Data bytes written (the data stream's length). */
  bytes = 0;
  /** Time offset (ms) from the start of the last record. */
  ms = 0;

  constructor(readonly dir: string) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    for (const f of ['timing', ...STREAMS]) this.fds.set(f, openSync(join(dir, f), 'w', 0o600));
  }

  private put(file: string, text: string, encoding: 'utf8' | 'latin1' = 'utf8'): void {
    let list = this.bufs.get(file);
    if (!list) this.bufs.set(file, (list = []));
    list.push(text);
    const size = (this.sizes.get(file) ?? 0) + text.length;
    this.sizes.set(file, size);
    if (size >= 256 * 1024) this.flush(file, encoding);
  }

  private flush(file: string, encoding: 'utf8' | 'latin1' = 'utf8'): void {
    const list = this.bufs.get(file);
    if (!list || list.length === 0) return;
    writeSync(this.fds.get(file)!, Buffer.from(list.join(''), file === 'timing' ? 'latin1' : encoding));
    list.length = 0;
    this.sizes.set(file, 0);
  }

  private delay(ms: number): string {
    this.ms += ms;
    const ns = Math.max(0, Math.round(ms * 1e6));
    return `${Math.floor(ns / 1e9)}.${String(ns % 1e9).padStart(9, '0')}`;
  }

  data(stream: Stream, text: string, delayMs: number): void {
    const n = Buffer.byteLength(text, 'utf8');
    if (n === 0) return;
    this.put('timing', `${STREAMS.indexOf(stream)} ${this.delay(delayMs)} ${n}\n`);
    this.put(stream, text);
    this.bytes += n;
  }

  winch(rows: number, cols: number, delayMs: number): void {
    this.put('timing', `5 ${this.delay(delayMs)} ${rows} ${cols}\n`);
  }

  /** Writes log and log.json, closes the files and marks the session finished. */
  finish(info: Record<string, unknown>, legacyLog: string): void {
    for (const f of ['timing', ...STREAMS]) {
      this.flush(f);
      closeSync(this.fds.get(f)!);
    }
    writeFileSync(join(this.dir, 'log'), legacyLog, { mode: 0o600 });
    writeFileSync(join(this.dir, 'log.json'), `${JSON.stringify(info, null, 4)}\n`, { mode: 0o600 });
    chmodSync(join(this.dir, 'timing'), 0o400);
  }
}

const pick = <T>(rnd: () => number, xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;

/** What a typed command prints (\n already as \r\n, as a tty shows it). */
function commandOutput(cmd: string, ctx: { runuser: string; host: string; cwd: string }, rnd: () => number): string {
  const lines = (...xs: string[]) => xs.map((x) => `${x}\r\n`).join('');
  switch (cmd.split(' ')[0]) {
    case 'whoami':
      return lines(ctx.runuser);
    case 'id':
      return lines(ctx.runuser === 'root' ? 'uid=0(root) gid=0(root) groups=0(root)' : `uid=1001(${ctx.runuser}) gid=1001(${ctx.runuser}) groups=1001(${ctx.runuser})`);
    case 'hostname':
      return lines(ctx.host);
    case 'pwd':
      return lines(ctx.cwd);
    case 'uptime':
      return lines(` 12:${String(Math.floor(rnd() * 60)).padStart(2, '0')}:07 up 41 days,  3:12,  2 users,  load average: ${(rnd() * 2).toFixed(2)}, 0.41, 0.37`);
    case 'df':
      return lines('Filesystem      Size  Used Avail Use% Mounted on', '/dev/sda1        40G   17G   21G  45% /', 'tmpfs           2.0G     0  2.0G   0% /dev/shm', '/dev/sdb1       200G  141G   50G  74% /var/lib/postgresql');
    case 'ls':
      return lines(
        'total 48',
        'drwxr-xr-x  5 root root 4096 Jan  2 09:14 \x1b[01;34m.\x1b[0m',
        'drwxr-xr-x 19 root root 4096 Dec 11 17:02 \x1b[01;34m..\x1b[0m',
        '-rw-r--r--  1 root root  220 Dec 11 17:02 .bash_logout',
        '-rw-r--r--  1 root root 3771 Dec 11 17:02 .bashrc',
        'drwx------  2 root root 4096 Jan  2 09:14 \x1b[01;34m.ssh\x1b[0m',
        '-rwxr-xr-x  1 root root 1320 Jan  2 09:10 \x1b[01;32mdeploy.sh\x1b[0m',
        '-rw-------  1 root root 2610 Jan  2 09:12 id_rsa.pub',
      );
    case 'systemctl':
      return lines(
        `\x1b[0;1;32m●\x1b[0m nginx.service - A high performance web server and a reverse proxy server`,
        '     Loaded: loaded (/lib/systemd/system/nginx.service; enabled; vendor preset: enabled)',
        '     Active: \x1b[0;1;32mactive (running)\x1b[0m since Fri 2026-01-02 09:14:31 UTC; 3h ago',
        '   Main PID: 812 (nginx)',
        '      Tasks: 3 (limit: 4675)',
      );
    case 'tail':
      return lines(...Array.from({ length: 5 }, (_, i) => `Jan  2 12:0${i}:1${i} ${ctx.host} sshd[${2200 + i}]: Accepted publickey for deploy from 10.0.${i}.7 port 5${i}122 ssh2`));
    case 'cat':
      return cmd.includes('shadow')
        ? lines('root:$y$j9T$Vb7q...:19725:0:99999:7:::', 'daemon:*:19725:0:99999:7:::', `${ctx.runuser === 'root' ? 'deploy' : ctx.runuser}:!:19725:0:99999:7:::`)
        : lines('127.0.0.1\tlocalhost', `10.0.0.12\t${ctx.host}`, '10.0.0.20\tdb.internal');
    case 'ps':
      return lines('USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND', 'root           1  0.0  0.2 167744 11800 ?        Ss   Jan01   0:09 /sbin/init', 'root         812  0.0  0.1  55180  5824 ?        Ss   09:14   0:00 nginx: master process', 'postgres     901  0.1  1.4 218312 58012 ?        Ss   09:14   0:21 postgres: checkpointer');
    default:
      return '';
  }
}

const SHELL_COMMANDS = ['whoami', 'id', 'hostname', 'pwd', 'uptime', 'df -h', 'ls -la', 'systemctl status nginx', 'tail -n 5 /var/log/auth.log', 'cat /etc/hosts', 'ps aux | head -4', 'cat /etc/shadow'];

/** An event's session: what generated K records carry. */
export interface EventSessionSpec {
  uniqueid: string;
  submituser: string;
  submithost: string;
  runuser: string;
  runhost: string;
  /** The command's path (runcommand) and argv (runargv). */
  command: string;
  argv: readonly string[];
  cwd: string;
  ttyname: string;
  /** Unix seconds the session started (the accept's time). */
  time: number;
  seed: number;
}

/**
 * Writes the session of a keystroke event into `dir`: a shell (bash, sh) shows a prompt and 3-7
 * commands typed and run, then exit; any other command shows its own output.
 */
export function writeEventSession(dir: string, spec: EventSessionSpec): { bytes: number; durationMs: number } {
  const rnd = prng(spec.seed >>> 0);
  const w = new SessionWriter(dir);
  const base = spec.command.slice(spec.command.lastIndexOf('/') + 1);
  const ctx = { runuser: spec.runuser, host: spec.runhost.split('.')[0]!, cwd: spec.runuser === 'root' ? '/root' : spec.cwd };
  const prompt = () => `\x1b[01;${spec.runuser === 'root' ? '31' : '32'}m${spec.runuser}@${ctx.host}\x1b[00m:\x1b[01;34m${ctx.cwd === '/root' ? '~' : ctx.cwd}\x1b[00m${spec.runuser === 'root' ? '#' : '$'} `;
  const type = (text: string) => {
    for (const ch of text) {
      w.data('ttyin', ch, 60 + rnd() * 220);
      w.data('ttyout', ch, 1 + rnd() * 3);
    }
    w.data('ttyin', '\r', 150 + rnd() * 400);
    w.data('ttyout', '\r\n', 2);
  };
  const isShell = (base === 'bash' || base === 'sh') && !spec.argv.includes('-c');
  if (isShell) {
    w.data('ttyout', prompt(), 40);
    const n = 3 + Math.floor(rnd() * 5);
    const used = new Set<string>();
    for (let i = 0; i < n; i++) {
      let cmd = pick(rnd, SHELL_COMMANDS);
      if (used.has(cmd)) cmd = SHELL_COMMANDS.find((c) => !used.has(c)) ?? cmd;
      used.add(cmd);
      type(cmd);
      const out = commandOutput(cmd, ctx, rnd);
      if (out) w.data('ttyout', out, 20 + rnd() * 200);
      w.data('ttyout', prompt(), 5 + rnd() * 30);
    }
    type('exit');
    w.data('ttyout', 'exit\r\n', 10);
  } else if (base === 'vim') {
    const file = spec.argv[1] ?? '/etc/hosts';
    let screen = '\x1b[?1049h\x1b[22;1H\x1b[?25l\x1b[H\x1b[2J';
    screen += '127.0.0.1\tlocalhost\r\n10.0.0.12\tweb01\r\n';
    for (let r = 3; r < 24; r++) screen += `\x1b[${r};1H\x1b[94m~\x1b[0m`;
    screen += `\x1b[24;1H"${file}" 2L, 36B\x1b[1;1H\x1b[?25h`;
    w.data('ttyout', screen, 300);
    w.data('ttyin', ':q\r', 2500);
    w.data('ttyout', '\x1b[24;1H:q\r\x1b[?1049l', 5);
  } else {
    const line = [spec.command, ...spec.argv.slice(1)].join(' ');
    const out = commandOutput(base === 'systemctl' ? 'systemctl' : base === 'journalctl' ? 'tail' : base, ctx, rnd) || `${line}: done\r\n`;
    w.data('ttyout', out, 80 + rnd() * 300);
  }
  w.finish(
    {
      timestamp: { seconds: Math.floor(spec.time), nanoseconds: Math.round((spec.time % 1) * 1e9) },
      uuid: spec.uniqueid,
      submituser: spec.submituser,
      submithost: spec.submithost,
      submitcwd: spec.cwd,
      command: spec.command,
      runuser: spec.runuser,
      runhost: spec.runhost,
      runcwd: ctx.cwd,
      runuid: spec.runuser === 'root' ? 0 : 1001,
      ttyname: spec.ttyname,
      columns: 80,
      lines: 24,
      runargv: [...spec.argv],
      runenv: ['LANG=C.UTF-8', 'TERM=xterm-256color', 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', `SUDO_USER=${spec.submituser}`],
    },
    `${Math.floor(spec.time)}:${spec.submituser}:${spec.runuser}::${spec.ttyname}:24:80\n${spec.cwd}\n${[spec.command, ...spec.argv.slice(1)].join(' ')}\n`,
  );
  return { bytes: w.bytes, durationMs: w.ms };
}

/**
 * One long interactive session of about `bytes` data bytes: typed commands, log dumps, listings,
 * full-screen redraws on the alternate screen, window changes, with human pauses between
 * commands (so time and bytes both grow). Memory stays bounded whatever the size.
 */
export function writeLongSession(dir: string, opts: { bytes: number; seed: number; start?: number }): { bytes: number; durationMs: number; records: number } {
  const rnd = prng(opts.seed >>> 0);
  const w = new SessionWriter(dir);
  let records = 0;
  const out = (text: string, ms: number) => {
    w.data('ttyout', text, ms);
    records++;
  };
  const type = (text: string) => {
    for (const ch of text) {
      w.data('ttyin', ch, 50 + rnd() * 200);
      out(ch, 1);
    }
    w.data('ttyin', '\r', 120);
    out('\r\n', 1);
  };
  let rows = 24;
  let cols = 80;
  const prompt = '\x1b[01;31mroot@build7\x1b[00m:\x1b[01;34m/srv/app\x1b[00m# ';
  out(prompt, 10);
  let n = 0;
  while (w.bytes < opts.bytes) {
    const what = rnd();
    if (what < 0.55) {
      type(`tail -n 4000 /var/log/app/worker-${n % 17}.log`);
      let chunk = '';
      const lines = 500 + Math.floor(rnd() * 4000);
      for (let k = 0; k < lines; k++) {
        chunk += `2026-01-0${1 + (k % 9)}T12:${String(k % 60).padStart(2, '0')}:${String((k * 7) % 60).padStart(2, '0')}Z ${pick(rnd, ['INFO ', 'WARN ', '\x1b[31mERROR\x1b[0m'])} worker-${n % 17} job ${n * 10000 + k} finished in ${Math.floor(rnd() * 900)} ms\r\n`;
        if (chunk.length > 3500) {
          out(chunk, 2);
          chunk = '';
        }
      }
      if (chunk) out(chunk, 2);
    } else if (what < 0.75) {
      type('top -b -n 1 | head');
      out('\x1b[?1049h\x1b[H\x1b[2J', 5);
      for (let f = 0; f < 20; f++) {
        let s = `\x1b[H\x1b[7m top - 12:00:${String(f).padStart(2, '0')} up 3 days, load average: ${(rnd() * 4).toFixed(2)}\x1b[K\x1b[0m`;
        for (let row = 3; row <= Math.min(rows, 20); row++) s += `\x1b[${row};1H${String(1000 + row * 7).padStart(6)} root  ${(rnd() * 100).toFixed(1).padStart(5)} ${pick(rnd, ['nginx', 'postgres', 'java', 'node'])}\x1b[K`;
        out(s, 300);
      }
      out('\x1b[?1049l', 50);
    } else if (what < 0.8) {
      rows = 24 + Math.floor(rnd() * 30);
      cols = 80 + Math.floor(rnd() * 100);
      w.winch(rows, cols, 400);
      records++;
      type('stty size');
      out(`${rows} ${cols}\r\n`, 2);
    } else {
      type('ls -la');
      out(commandOutput('ls', { runuser: 'root', host: 'build7', cwd: '/srv/app' }, rnd), 3);
    }
    out(prompt, 1000 + rnd() * 8000);
    n++;
  }
  type('exit');
  out('exit\r\n', 5);
  const start = opts.start ?? 1_767_225_600;
  w.finish(
    {
      timestamp: { seconds: start, nanoseconds: 0 },
      submituser: 'alice',
      submithost: 'build7',
      submitcwd: '/home/alice',
      command: '/usr/bin/bash',
      runuser: 'root',
      runuid: 0,
      ttyname: '/dev/pts/3',
      columns: 80,
      lines: 24,
      runargv: ['bash'],
      runenv: ['LANG=C.UTF-8', 'TERM=xterm-256color'],
    },
    `${start}:alice:root::/dev/pts/3:24:80\n/home/alice\n/usr/bin/bash\n`,
  );
  return { bytes: w.bytes, durationMs: w.ms, records };
}
