// Synthetic sessions of the kinds an operator reviews: shell prompts with line editing, coloured
// `ls -l`, full-screen redraws, scroll regions, the alternate screen, wrapping at the last column,
// resizes and UTF-8 (wide and combining characters). Deterministic.
import { rng } from './random-session.js';
import { SessionBuilder } from './session-events.js';

export interface Scenario {
  name: string;
  cols: number;
  rows: number;
  session: SessionBuilder;
}

const E = '\x1b';
const PROMPT = `${E}]0;root@vm: /tmp${E}\\${E}[01;32mroot@vm${E}[00m:${E}[01;34m/tmp${E}[00m# `;

const COLORS = ['01;34', '01;32', '01;36', '00', '40;33;01', '01;31', '38;5;208', '30;42'];
const NAMES = ['bin', 'boot', 'dev', 'etc', 'home', 'lib', 'lib64', 'media', 'mnt', 'opt', 'proc', 'root', 'run', 'sbin', 'srv', 'sys', 'tmp', 'usr', 'var', 'vmlinuz', 'initrd.img', 'résumé.txt', '日本語.txt', 'a-very-long-file-name-that-goes-on-and-on-and-on.tar.gz'];

/** Lines of a coloured `ls -l` (as a tty shows them: \r\n line ends). */
export function colouredLsLines(count: number, seed = 1): string[] {
  const r = rng(seed);
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const name = NAMES[Math.floor(r() * NAMES.length)]!;
    const color = COLORS[Math.floor(r() * COLORS.length)]!;
    const size = String(Math.floor(r() * 100000)).padStart(6);
    const dir = r() < 0.4 ? 'd' : '-';
    out.push(`${dir}rwxr-xr-x  2 root root ${size} Nov 22 02:4${i % 10} ${E}[0m${E}[${color}m${name}${E}[0m\r\n`);
  }
  return out;
}

function shellPrompts(): Scenario {
  const s = new SessionBuilder().text(`${E}[?2004h${PROMPT}`);
  s.text('ls -la /tmpp').text('\b \b').text('\b\b\b\b').text(`${E}[K`).text('/tmp').text('\r\n').text(`${E}[?2004l\r`);
  s.text('total 8\r\ndrwxrwxrwt  2 root root 4096 Nov 22 02:44 .\r\n');
  s.text(`${E}[?2004h${PROMPT}`).text('echo héllo wörld\r\n').text('héllo wörld\r\n');
  s.text(PROMPT).text('history').text(`\r${E}[K${PROMPT}`).text('cat /etc/hostname\r\nvm\r\n').text(PROMPT);
  return { name: 'shell prompts with line editing', cols: 80, rows: 24, session: s };
}

function colouredLs(rows: number, count: number): Scenario {
  const s = new SessionBuilder().text(PROMPT + 'ls -l --color=always /\r\n');
  for (const l of colouredLsLines(count)) s.text(l);
  s.text(PROMPT);
  return { name: `coloured ls -l, ${count} lines on ${rows} rows`, cols: 80, rows, session: s };
}

function fullScreenRedraws(): Scenario {
  const s = new SessionBuilder().text(`${E}[?1049h${E}[22;0;0t${E}[H${E}[2J`);
  const r = rng(7);
  for (let frame = 0; frame < 6; frame++) {
    s.text(`${E}[H${E}[1mtop - 02:4${frame}:00 up 1 day,  load average: 0.0${frame}${E}[m${E}[K`);
    for (let row = 2; row <= 20; row++) {
      const pid = 1000 + Math.floor(r() * 9000);
      s.text(`${E}[${row};1H${String(pid).padStart(6)} root      20   0 ${'x'.repeat(Math.floor(r() * 30))}${E}[K`);
    }
    s.text(`${E}[21;1H${E}[J`);
  }
  s.text(`${E}[24;1H${E}[?1049l${E}[23;0;0t`);
  return { name: 'full-screen redraws with cup/ed/el (top)', cols: 80, rows: 24, session: s };
}

function scrollRegions(): Scenario {
  const s = new SessionBuilder().text(`${E}[?1049h${E}[H${E}[2J`);
  for (let i = 1; i <= 22; i++) s.text(`${E}[${i};1Hline ${i}`);
  s.text(`${E}[23;1H${E}[7m-- status --${E}[m`);
  s.text(`${E}[1;22r${E}[22;1H`);
  for (let i = 23; i <= 30; i++) s.text(`\nline ${i}`);
  s.text(`${E}[1;1H${E}M${E}Mback 1${E}[5;1H${E}[2L${E}[3M${E}[2S${E}[T`);
  s.text(`${E}[r${E}[24;1H`);
  return { name: 'scroll regions (less/vim style), IL/DL/SU/SD/RI', cols: 80, rows: 24, session: s };
}

function alternateScreen(): Scenario {
  const s = new SessionBuilder().text(PROMPT + 'vim notes.txt\r\n');
  s.text(`${E}[?1049h${E}[22;0;0t${E}[?1h${E}=${E}[H${E}[2J`);
  s.text(`${E}[1;1Hhello from vim${E}[2;1H~${E}[3;1H~${E}[24;1H"notes.txt" 1L, 15B`);
  s.text(`${E}[1;6H${E}[4h, inserted${E}[4l`);
  s.text(`${E}[?1l${E}>${E}[24;1H${E}[K${E}[?1049l${E}[23;0;0t`).text(PROMPT);
  s.text(`${E}[?47hsecond alt${E}[?47l`).text(`${E}[?1047halt 1047${E}[?1047l`);
  return { name: 'alternate screen (1049, 47, 1047) and insert mode', cols: 80, rows: 24, session: s };
}

function wrapping(): Scenario {
  const s = new SessionBuilder();
  s.text('a'.repeat(40) + '\r\n');
  s.text('b'.repeat(40) + 'c\r\n');
  s.text('d'.repeat(40) + '\r' + 'e'.repeat(3) + '\r\n');
  s.text('f'.repeat(40) + '\b' + 'g' + '\r\n');
  s.text('h'.repeat(120) + '\r\n');
  s.text('i'.repeat(39) + '日本' + '\r\n');
  s.text(`${E}[?7l` + 'j'.repeat(50) + `${E}[?7h\r\n`);
  s.text('k'.repeat(40) + `${E}[K` + 'l\r\n');
  s.text('m'.repeat(40) + '\n' + 'n\r\n');
  return { name: 'wrapping at the last column, pending wrap, DECAWM off', cols: 40, rows: 20, session: s };
}

function resizes(): Scenario {
  const s = new SessionBuilder();
  for (let i = 0; i < 10; i++) s.text(`line ${i} ` + 'w'.repeat(i * 9) + '\r\n');
  s.resize(30, 12).text('after shrink ' + 'x'.repeat(40) + '\r\n');
  s.resize(100, 30).text('after grow\r\n');
  s.resize(50, 5).text('short\r\n').resize(80, 24).text('back\r\n');
  s.text(`${E}[?1049h`).resize(60, 10).text('in alt').resize(80, 24).text(`${E}[?1049l`);
  return { name: 'resizes with wrapped lines (reflow) and in the alternate screen', cols: 80, rows: 24, session: s };
}

function unicode(): Scenario {
  const s = new SessionBuilder();
  s.text('héllo wörld naïve façade\r\n');
  s.text('日本語のテキスト 한국어 텍스트 中文\r\n');
  s.text('emoji 😀👍 and ｆｕｌｌｗｉｄｔｈ\r\n');
  s.text('combining: e\u0301 a\u0308\u0323 n\u0303\r\n');
  s.text('x'.repeat(29) + '漢字' + '\r\n');
  s.text('漢字'.repeat(20) + '\r\n');
  s.text(`abc${E}[2D日${E}[3G本\r\n`);
  s.text(`${E}(0lqqk\r\nx  x\r\nmqqj${E}(B\r\n`);
  return { name: 'UTF-8: accents, CJK, emoji, combining, wide at the edge, DEC graphics', cols: 30, rows: 16, session: s };
}

function tabsAndControls(): Scenario {
  const s = new SessionBuilder();
  s.text('a\tb\tc\td\r\n');
  s.text(`${E}[3g${E}[5G${E}H${E}[15G${E}H\r\tx\ty\tz\r\n`);
  s.text(`${E}[2I*${E}[Z+${E}[g\r\n`);
  s.text(`12345${E}[3D${E}[P${E}[@#${E}[2X\r\n`);
  s.text(`${E}7saved${E}[10;10Hfar${E}8back\r\n`);
  s.text(`${E}#8`).text(`${E}[5;5H${E}[1J${E}[10;1H`);
  s.text(`${E}[!p${E}c` + 'after reset\r\n');
  return { name: 'tabs, tab stops, ICH/DCH/ECH, save/restore, DECALN, resets', cols: 40, rows: 12, session: s };
}

export function scenarios(): Scenario[] {
  return [shellPrompts(), colouredLs(24, 15), colouredLs(24, 120), fullScreenRedraws(), scrollRegions(), alternateScreen(), wrapping(), resizes(), unicode(), tabsAndControls()];
}
