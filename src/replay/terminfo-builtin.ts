// Built-in terminfo entries, used when the system has no terminfo database (or not the entry).
// Only output capabilities are kept (what a program sends to the terminal); key capabilities and
// init strings play no part in naming output. Strings use terminfo's own notation after
// unescaping: "\x1b" for \E, and %-codes for parameters. They describe the usual xterm (XFree86
// / X.Org), DEC VT100, Linux console and GNU screen behaviour.

export interface BuiltinEntry {
  description: string;
  numbers: Record<string, number>;
  strings: Record<string, string>;
}

const E = '\x1b';

/** What all ANSI-style terminals here share. */
const ANSI: Record<string, string> = {
  bel: '\x07',
  cr: '\r',
  ht: '\t',
  ind: '\n',
  cud1: '\n',
  cub1: '\b',
  cub: `${E}[%p1%dD`,
  cud: `${E}[%p1%dB`,
  cuf: `${E}[%p1%dC`,
  cuf1: `${E}[C`,
  cuu: `${E}[%p1%dA`,
  cuu1: `${E}[A`,
  cup: `${E}[%i%p1%d;%p2%dH`,
  home: `${E}[H`,
  csr: `${E}[%i%p1%d;%p2%dr`,
  ed: `${E}[J`,
  el: `${E}[K`,
  el1: `${E}[1K`,
  hts: `${E}H`,
  tbc: `${E}[3g`,
  ri: `${E}M`,
  sc: `${E}7`,
  rc: `${E}8`,
  smso: `${E}[7m`,
  smul: `${E}[4m`,
  rev: `${E}[7m`,
  bold: `${E}[1m`,
  blink: `${E}[5m`,
  smam: `${E}[?7h`,
  rmam: `${E}[?7l`,
  smkx: `${E}[?1h${E}=`,
  rmkx: `${E}[?1l${E}>`,
  u7: `${E}[6n`,
};

/** Capabilities xterm, the Linux console and screen add to ANSI. */
const VT220ISH: Record<string, string> = {
  dch: `${E}[%p1%dP`,
  dch1: `${E}[P`,
  dl: `${E}[%p1%dM`,
  dl1: `${E}[M`,
  il: `${E}[%p1%dL`,
  il1: `${E}[L`,
  ich: `${E}[%p1%d@`,
  hpa: `${E}[%i%p1%dG`,
  vpa: `${E}[%i%p1%dd`,
  smir: `${E}[4h`,
  rmir: `${E}[4l`,
  civis: `${E}[?25l`,
  dim: `${E}[2m`,
  op: `${E}[39;49m`,
  rmso: `${E}[27m`,
  rmul: `${E}[24m`,
  setaf: `${E}[3%p1%dm`,
  setab: `${E}[4%p1%dm`,
};

const XTERM: Record<string, string> = {
  ...ANSI,
  ...VT220ISH,
  cbt: `${E}[Z`,
  clear: `${E}[H${E}[2J`,
  cnorm: `${E}[?12l${E}[?25h`,
  cvvis: `${E}[?12;25h`,
  ech: `${E}[%p1%dX`,
  flash: `${E}[?5h$<100/>${E}[?5l`,
  indn: `${E}[%p1%dS`,
  rin: `${E}[%p1%dT`,
  invis: `${E}[8m`,
  nel: `${E}E`,
  sitm: `${E}[3m`,
  ritm: `${E}[23m`,
  smacs: `${E}(0`,
  rmacs: `${E}(B`,
  smcup: `${E}[?1049h${E}[22;0;0t`,
  rmcup: `${E}[?1049l${E}[23;0;0t`,
  sgr0: `${E}(B${E}[m`,
  sgr: `%?%p9%t${E}(0%e${E}(B%;${E}[0%?%p6%t;1%;%?%p5%t;2%;%?%p2%t;4%;%?%p1%p3%|%t;7%;%?%p4%t;5%;%?%p7%t;8%;m`,
  mc0: `${E}[i`,
  mc4: `${E}[4i`,
  mc5: `${E}[5i`,
  meml: `${E}l`,
  memu: `${E}m`,
  smm: `${E}[?1034h`,
  rmm: `${E}[?1034l`,
  // Extended (user-defined) capabilities of ncurses' xterm entries.
  BD: `${E}[?2004l`,
  BE: `${E}[?2004h`,
  E3: `${E}[3J`,
  Se: `${E}[2 q`,
  Ss: `${E}[%p1%d q`,
  Cr: `${E}]112\x07`,
  Cs: `${E}]12;%p1%s\x07`,
};

export const BUILTIN_TERMINFO: Record<string, BuiltinEntry> = {
  'xterm-256color': {
    description: 'xterm with 256 colors (built-in)',
    numbers: { cols: 80, lines: 24, it: 8, colors: 256, pairs: 65536 },
    strings: {
      ...XTERM,
      setaf: `${E}[%?%p1%{8}%<%t3%p1%d%e%p1%{16}%<%t9%p1%{8}%-%d%e38;5;%p1%d%;m`,
      setab: `${E}[%?%p1%{8}%<%t4%p1%d%e%p1%{16}%<%t10%p1%{8}%-%d%e48;5;%p1%d%;m`,
      oc: `${E}]104\x07`,
    },
  },
  xterm: {
    description: 'xterm terminal emulator (built-in)',
    numbers: { cols: 80, lines: 24, it: 8, colors: 8, pairs: 64 },
    strings: { ...XTERM },
  },
  vt100: {
    description: 'DEC VT100 with advanced video (built-in)',
    numbers: { cols: 80, lines: 24, it: 8, vt: 3 },
    strings: {
      ...ANSI,
      clear: `${E}[H${E}[J$<50>`,
      enacs: `${E}(B${E})0`,
      smacs: '\x0e',
      rmacs: '\x0f',
      rmso: `${E}[m$<2>`,
      rmul: `${E}[m$<2>`,
      sgr0: `${E}[m\x0f$<2>`,
      sgr: `${E}[0%?%p1%p6%|%t;1%;%?%p2%t;4%;%?%p1%p3%|%t;7%;%?%p4%t;5%;m%?%p9%t\x0e%e\x0f%;$<2>`,
    },
  },
  linux: {
    description: 'Linux console (built-in)',
    numbers: { it: 8, colors: 8, pairs: 64 },
    strings: {
      ...ANSI,
      ...VT220ISH,
      ich1: `${E}[@`,
      clear: `${E}[H${E}[J`,
      civis: `${E}[?25l${E}[?1c`,
      cnorm: `${E}[?25h${E}[?0c`,
      cvvis: `${E}[?25h${E}[?8c`,
      ech: `${E}[%p1%dX`,
      nel: '\r\n',
      smacs: '\x0e',
      rmacs: '\x0f',
      sgr0: `${E}[m\x0f`,
      oc: `${E}]R`,
    },
  },
  screen: {
    description: 'GNU screen, VT 100/ANSI X3.64 virtual terminal (built-in)',
    numbers: { cols: 80, lines: 24, it: 8, colors: 8, pairs: 64 },
    strings: {
      ...ANSI,
      ...VT220ISH,
      cbt: `${E}[Z`,
      clear: `${E}[H${E}[J`,
      cnorm: `${E}[34h${E}[?25h`,
      cvvis: `${E}[34l`,
      cuu1: `${E}M`,
      flash: `${E}g`,
      indn: `${E}[%p1%dS`,
      rin: `${E}[%p1%dT`,
      nel: `${E}E`,
      smacs: '\x0e',
      rmacs: '\x0f',
      smcup: `${E}[?1049h`,
      rmcup: `${E}[?1049l`,
      smso: `${E}[3m`,
      rmso: `${E}[23m`,
      sgr0: `${E}[m\x0f`,
    },
  },
};
