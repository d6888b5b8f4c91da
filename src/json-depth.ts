// The nesting bound on JSON that evio reads from files and requests. JSON.parse copes with any
// depth, but what comes after it does not: JSON.stringify, structuredClone (worker answers) and
// recursive walkers overflow the stack somewhere past a few thousand levels. Real audit data
// nests a handful of levels, so anything deeper than JSON_MAX_DEPTH is refused where it enters:
// a record to append, a stored line or row, a log.json, an asciicast header, an imported event.

/** Objects and arrays nested deeper than this are refused (`{"a":[1]}` has depth 2). */
export const JSON_MAX_DEPTH = 64;

const OPEN_OBJECT = '{';
const OPEN_ARRAY = '[';

/** Counts occurrences of `ch` in `text`, stopping once the count passes `cap`. */
function countUpTo(text: string, ch: string, cap: number): number {
  let n = 0;
  for (let i = text.indexOf(ch); i >= 0 && n <= cap; i = text.indexOf(ch, i + 1)) n++;
  return n;
}

/**
 * True when JSON text nests objects and arrays deeper than `limit` (brackets inside strings do
 * not count). Meant to run before JSON.parse on text of unknown origin: the depth can only
 * exceed the limit when the text holds more than `limit` opening brackets, which a native
 * indexOf counts cheaply, so ordinary text (a record has one or two) never reaches the
 * character-by-character walk.
 */
export function jsonTextTooDeep(text: string, limit = JSON_MAX_DEPTH): boolean {
  const objects = countUpTo(text, OPEN_OBJECT, limit);
  if (objects > limit) return depthOfText(text) > limit;
  if (objects + countUpTo(text, OPEN_ARRAY, limit - objects) <= limit) return false;
  return depthOfText(text) > limit;
}

/** The deepest nesting of objects and arrays in JSON text, outside strings. */
function depthOfText(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > max) max = depth;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) depth--;
  }
  return max;
}

/**
 * True when a value nests objects and arrays deeper than `limit`. Iterative (an explicit stack),
 * so it cannot overflow itself; a cyclic value counts as too deep.
 */
export function valueTooDeep(value: unknown, limit = JSON_MAX_DEPTH): boolean {
  if (value === null || typeof value !== 'object') return false;
  const stack: Array<[object, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (depth > limit) return true;
    const children = Array.isArray(v) ? v : Object.values(v);
    for (const c of children) if (c !== null && typeof c === 'object') stack.push([c as object, depth + 1]);
  }
  return false;
}
