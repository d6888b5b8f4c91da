// tparm(): instantiates a parameterised terminfo string (terminfo(5) "Parameterized Strings").
// The language has no loops, so the work is bounded by the string's length; the stack and the
// output are capped too. Padding (`$<5>`, `$<100/>`) is dropped, as tputs would on a terminal
// without padding. Malformed strings never throw: unknown %-codes are skipped.

export type TparmArg = number | string;

const MAX_STACK = 64;
const MAX_OUTPUT = 4096;

export function tparm(cap: string, ...args: TparmArg[]): string {
  const params: TparmArg[] = [];
  for (let i = 0; i < 9; i++) params.push(args[i] ?? 0);
  const stack: TparmArg[] = [];
  const vars = new Map<string, TparmArg>();
  let out = '';
  const push = (v: TparmArg): void => {
    if (stack.length < MAX_STACK) stack.push(v);
  };
  const popNum = (): number => {
    const v = stack.pop();
    return typeof v === 'number' ? v : typeof v === 'string' ? 0 : 0;
  };
  const popAny = (): TparmArg => stack.pop() ?? 0;
  const n = cap.length;
  let i = 0;

  /** Skips a conditional part: to the matching %e (if `toElse`) or %; at this nesting level. */
  const skip = (toElse: boolean): void => {
    let depth = 0;
    while (i < n) {
      if (cap[i] !== '%') {
        i++;
        continue;
      }
      const c = cap[i + 1];
      i += 2;
      if (c === '?') depth++;
      else if (c === ';') {
        if (depth === 0) return;
        depth--;
      } else if (c === 'e' && depth === 0 && toElse) return;
    }
  };

  while (i < n && out.length < MAX_OUTPUT) {
    const ch = cap[i]!;
    if (ch === '$' && cap[i + 1] === '<') {
      const close = cap.indexOf('>', i + 2);
      if (close > 0) {
        i = close + 1;
        continue;
      }
    }
    if (ch !== '%') {
      out += ch;
      i++;
      continue;
    }
    i++;
    const c = cap[i++];
    switch (c) {
      case undefined:
        break;
      case '%':
        out += '%';
        break;
      case 'c':
        out += String.fromCharCode(popNum() & 0xff);
        break;
      case 'p': {
        const k = Number(cap[i++]) - 1;
        push(params[k] ?? 0);
        break;
      }
      case 'P': {
        const name = cap[i++];
        if (name) vars.set(name, popAny());
        break;
      }
      case 'g': {
        const name = cap[i++];
        push((name && vars.get(name)) ?? 0);
        break;
      }
      case "'": {
        push((cap.charCodeAt(i) || 0) & 0xff);
        i += 2;
        break;
      }
      case '{': {
        const close = cap.indexOf('}', i);
        const end = close < 0 ? n : close;
        push(Number.parseInt(cap.slice(i, end), 10) || 0);
        i = end + 1;
        break;
      }
      case 'l': {
        const v = popAny();
        push(typeof v === 'string' ? v.length : 0);
        break;
      }
      case '+': case '-': case '*': case '/': case 'm':
      case '&': case '|': case '^': case '=': case '>': case '<': case 'A': case 'O': {
        const b = popNum();
        const a = popNum();
        push(binary(c, a, b));
        break;
      }
      case '!':
        push(popNum() ? 0 : 1);
        break;
      case '~':
        push(~popNum());
        break;
      case 'i':
        if (typeof params[0] === 'number') params[0]++;
        if (typeof params[1] === 'number') params[1]++;
        break;
      case '?':
        break;
      case 't':
        if (!popNum()) skip(true);
        break;
      case 'e':
        skip(false);
        break;
      case ';':
        break;
      default: {
        // printf-style: %[[:]flags][width[.precision]][doxXs]
        const m = /^:?([-+# ]*)(\d*)(?:\.(\d+))?([doxXs])/.exec(cap.slice(i - 1));
        if (!m) break;
        i += m[0].length - 1;
        out += format(m[4]!, m[1]! + (m[2]?.startsWith('0') ? '0' : ''), m[2] ? Number(m[2]) : 0, m[3] !== undefined ? Number(m[3]) : -1, m[4] === 's' ? popAny() : popNum());
        break;
      }
    }
  }
  return out.length > MAX_OUTPUT ? out.slice(0, MAX_OUTPUT) : out;
}

function binary(op: string, a: number, b: number): number {
  switch (op) {
    case '+': return (a + b) | 0;
    case '-': return (a - b) | 0;
    case '*': return Math.imul(a, b);
    case '/': return b ? Math.trunc(a / b) : 0;
    case 'm': return b ? a % b : 0;
    case '&': return a & b;
    case '|': return a | b;
    case '^': return a ^ b;
    case '=': return a === b ? 1 : 0;
    case '>': return a > b ? 1 : 0;
    case '<': return a < b ? 1 : 0;
    case 'A': return a && b ? 1 : 0;
    default: return a || b ? 1 : 0; // 'O'
  }
}

function format(conv: string, flags: string, width: number, precision: number, value: TparmArg): string {
  let s: string;
  if (conv === 's') {
    s = String(value);
    if (precision >= 0) s = s.slice(0, precision);
  } else {
    const v = typeof value === 'number' ? value : 0;
    const neg = v < 0 && conv === 'd';
    const abs = conv === 'd' ? Math.abs(v) : v >>> 0;
    s = abs.toString(conv === 'o' ? 8 : conv === 'd' ? 10 : 16);
    if (conv === 'X') s = s.toUpperCase();
    if (precision >= 0) s = s.padStart(precision, '0');
    if (flags.includes('#') && abs !== 0) s = (conv === 'o' ? '0' : conv === 'x' ? '0x' : conv === 'X' ? '0X' : '') + s;
    if (neg) s = '-' + s;
    else if (conv === 'd' && flags.includes('+')) s = '+' + s;
    else if (conv === 'd' && flags.includes(' ')) s = ' ' + s;
  }
  if (s.length < width) {
    if (flags.includes('-')) s = s.padEnd(width);
    else if (flags.includes('0') && conv !== 's') s = s.startsWith('-') ? '-' + s.slice(1).padStart(width - 1, '0') : s.padStart(width, '0');
    else s = s.padStart(width);
  }
  return s;
}
