// The client address a connection is counted under for maxConnectionsPerAddress. An IPv4
// address is itself (an IPv4-mapped IPv6 address is its IPv4 address); an IPv6 address counts
// under its /64, the block one host or site is usually given, so a client cannot multiply its
// share by picking addresses of its own prefix.
import { isIPv4, isIPv6 } from 'node:net';

/** Expands an IPv6 address (no zone) to its eight 16-bit groups, or null. */
function ipv6Groups(addr: string): number[] | null {
  let text = addr;
  let tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  const last = text.slice(lastColon + 1);
  if (isIPv4(last)) {
    // An embedded IPv4 address (::ffff:a.b.c.d, 64:ff9b::a.b.c.d): its two groups.
    const [a, b, c, d] = last.split('.').map(Number) as [number, number, number, number];
    tail = [(a << 8) | b, (c << 8) | d];
    text = `${text.slice(0, lastColon + 1)}0`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const part = (s: string) => (s === '' ? [] : s.split(':').map((g) => Number.parseInt(g, 16)));
  const head = part(halves[0]!);
  const rest = halves.length === 2 ? part(halves[1]!) : [];
  if (tail.length) (halves.length === 2 ? rest : head).pop();
  const fill = 8 - tail.length - head.length - rest.length;
  if (fill < 0 || (halves.length === 1 && fill !== 0)) return null;
  const groups = [...head, ...new Array<number>(fill).fill(0), ...rest, ...tail];
  return groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

/** `203.0.113.7`, `2001:db8:1:2::/64`, or the address as given when it cannot be read. */
export function peerKey(remoteAddress: string | undefined): string {
  if (!remoteAddress) return 'unknown';
  if (isIPv4(remoteAddress)) return remoteAddress;
  const addr = remoteAddress.split('%')[0]!;
  if (!isIPv6(addr)) return remoteAddress;
  const g = ipv6Groups(addr);
  if (!g) return remoteAddress;
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return `${g[6]! >> 8}.${g[6]! & 255}.${g[7]! >> 8}.${g[7]! & 255}`;
  return `${g.slice(0, 4).map((x) => x.toString(16)).join(':')}::/64`;
}
