// JSON laid out byte for byte as sudo's writer lays it out (lib/util/json.c, sudo 1.9.13, with
// indent 4 as log.json uses): every member on its own line, nested containers indented by 4
// more, `"name": value`, `"name": {` / `"name": [`, the closing bracket on its own line at the
// outer indent. Strings: `"` and `\` escaped, \b \f \n \r \t, other control characters
// (0x00-0x1f, 0x7f) as \u00xx with lower-case hex, everything else copied (UTF-8).
// One deliberate difference: sudo forgets the comma after an empty array or object; this writer
// does not (sudoreplay could not read such a file).

/** What the writer can render: JSON values, arrays and plain objects. */
export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [k: string]: JsonValue };

const HEX = '0123456789abcdef';

/** A string as sudo's json_append_string writes it, quotes included. */
export function sudoJsonString(s: string): string {
  let out = '"';
  let from = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    let esc: string | null = null;
    if (c === 0x22) esc = '\\"';
    else if (c === 0x5c) esc = '\\\\';
    else if (c < 0x20 || c === 0x7f) {
      if (c === 0x08) esc = '\\b';
      else if (c === 0x0c) esc = '\\f';
      else if (c === 0x0a) esc = '\\n';
      else if (c === 0x0d) esc = '\\r';
      else if (c === 0x09) esc = '\\t';
      else esc = `\\u00${HEX[c >> 4]}${HEX[c & 15]}`;
    }
    if (esc !== null) {
      out += s.slice(from, i) + esc;
      from = i + 1;
    }
  }
  return out + s.slice(from) + '"';
}

function numberText(n: number): string {
  // sudo prints integers with %lld; a fraction (only in evio's own extra keys) as JSON does.
  return Number.isFinite(n) ? JSON.stringify(n) : 'null';
}

export class SudoJsonWriter {
  private out = '';
  private level: number;
  private needComma = false;

  /** `indent`: the starting indent and its increment (log.json: 4, members at 4 spaces). */
  constructor(private readonly indent = 4) {
    this.level = indent;
  }

  private newLine(): void {
    this.out += '\n' + ' '.repeat(this.level);
  }

  private start(name: string | null): void {
    if (this.needComma) this.out += ',';
    this.newLine();
    if (name !== null) this.out += `${sudoJsonString(name)}: `;
  }

  openObject(name: string | null): void {
    this.start(name);
    this.out += '{';
    this.level += this.indent;
    this.needComma = false;
  }

  closeObject(): void {
    this.level -= this.indent;
    this.newLine();
    this.out += '}';
    this.needComma = true;
  }

  openArray(name: string | null): void {
    this.start(name);
    this.out += '[';
    this.level += this.indent;
    this.needComma = false;
  }

  closeArray(): void {
    this.level -= this.indent;
    this.newLine();
    this.out += ']';
    this.needComma = true;
  }

  /** One member (or array element when `name` is null) of any JSON value. */
  add(name: string | null, v: JsonValue): void {
    if (Array.isArray(v)) {
      this.openArray(name);
      for (const e of v as readonly JsonValue[]) this.add(null, e);
      this.closeArray();
      return;
    }
    if (v !== null && typeof v === 'object') {
      this.openObject(name);
      for (const [k, e] of Object.entries(v)) this.add(k, e);
      this.closeObject();
      return;
    }
    this.start(name);
    this.out += typeof v === 'string' ? sudoJsonString(v) : typeof v === 'number' ? numberText(v) : v === null ? 'null' : v ? 'true' : 'false';
    this.needComma = true;
  }

  /** The members written so far (what goes between `{` and `\n}\n`). */
  get text(): string {
    return this.out;
  }
}
