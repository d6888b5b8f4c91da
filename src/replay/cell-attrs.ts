// Cell attributes (SGR) as two 32-bit words, fg and bg, in xterm.js's layout (its
// AttributeData, MIT), so the fidelity tests compare them with @xterm/headless directly:
//   bits 0-23  colour: a palette index (0-255) or 0xRRGGBB
//   bits 24-25 colour mode: 0 default, 1 the 16 ANSI colours, 2 the 256-colour palette, 3 RGB
//   bits 26-31 flags: fg word: inverse, bold, underline, blink, invisible, strikethrough;
//              bg word: italic, dim, (bit 29) protected (DECSCA), (bit 30) overline.
// Protection is xterm.js's BgFlags.PROTECTED: set by CSI 1 " q, cleared by CSI 0/2 " q and by
// SGR 0 (which resets the whole bg word there too); selective erases (DECSED, DECSEL) skip the
// cells that carry it. It costs no storage of its own: a bit of the bg word.
// 0 / 0 is the default: no colour, no flag.
import type { Params } from './params.js';

export const COLOR_MASK = 0xffffff;
export const CM_MASK = 0x3000000;
export const CM_DEFAULT = 0;
export const CM_P16 = 0x1000000;
export const CM_P256 = 0x2000000;
export const CM_RGB = 0x3000000;

export const FG_INVERSE = 0x4000000;
export const FG_BOLD = 0x8000000;
export const FG_UNDERLINE = 0x10000000;
export const FG_BLINK = 0x20000000;
export const FG_INVISIBLE = 0x40000000;
export const FG_STRIKETHROUGH = 0x80000000;
export const BG_ITALIC = 0x4000000;
export const BG_DIM = 0x8000000;
export const BG_PROTECTED = 0x20000000;
export const BG_OVERLINE = 0x40000000;

/** The attributes an erase fills with (back colour erase, as xterm): the background colour only. */
export const eraseBg = (bg: number): number => bg & (CM_MASK | COLOR_MASK);

/** Current attributes of a screen: SGR changes them; they are saved with the cursor. */
export class Pen {
  fg = 0;
  bg = 0;

  reset(): void {
    this.fg = 0;
    this.bg = 0;
  }

  /** DECSCA (CSI Ps " q): 1 protects the characters written from now on, 0 and 2 do not (xterm.js's selectProtected). */
  selectProtected(ps: number): void {
    if (ps === 1) this.bg |= BG_PROTECTED;
    else if (ps === 0 || ps === 2) this.bg &= ~BG_PROTECTED;
  }

  /** Applies CSI … m, following xterm.js's charAttributes (what it stores in its buffer). */
  sgr(params: Params): void {
    const n = params.length;
    if (n === 1 && params.values[0] === 0) {
      this.fg = 0;
      this.bg = 0;
      return;
    }
    for (let i = 0; i < n; i++) {
      const p = params.values[i]!;
      if (p >= 30 && p <= 37) this.fg = (this.fg & ~(CM_MASK | COLOR_MASK)) | CM_P16 | (p - 30);
      else if (p >= 40 && p <= 47) this.bg = (this.bg & ~(CM_MASK | COLOR_MASK)) | CM_P16 | (p - 40);
      else if (p >= 90 && p <= 97) this.fg = (this.fg & ~(CM_MASK | COLOR_MASK)) | CM_P16 | (p - 90) | 8;
      else if (p >= 100 && p <= 107) this.bg = (this.bg & ~(CM_MASK | COLOR_MASK)) | CM_P16 | (p - 100) | 8;
      else {
        switch (p) {
          case 0: this.fg = 0; this.bg = 0; break;
          case 1: this.fg |= FG_BOLD; break;
          case 2: this.bg |= BG_DIM; break;
          case 3: this.bg |= BG_ITALIC; break;
          case 4: {
            // 4:0 is "no underline"; any other style (4:1 … 4:5) underlines.
            const style = params.hasSubParams(i) ? params.subParams(i)[0]! : 1;
            if (style === 0) this.fg &= ~FG_UNDERLINE;
            else this.fg |= FG_UNDERLINE;
            break;
          }
          case 5: this.fg |= FG_BLINK; break;
          case 7: this.fg |= FG_INVERSE; break;
          case 8: this.fg |= FG_INVISIBLE; break;
          case 9: this.fg |= FG_STRIKETHROUGH; break;
          case 21: this.fg |= FG_UNDERLINE; break;
          case 22: this.fg &= ~FG_BOLD; this.bg &= ~BG_DIM; break;
          case 23: this.bg &= ~BG_ITALIC; break;
          case 24: this.fg &= ~FG_UNDERLINE; break;
          case 25: this.fg &= ~FG_BLINK; break;
          case 27: this.fg &= ~FG_INVERSE; break;
          case 28: this.fg &= ~FG_INVISIBLE; break;
          case 29: this.fg &= ~FG_STRIKETHROUGH; break;
          case 39: this.fg &= ~(CM_MASK | COLOR_MASK); break;
          case 49: this.bg &= ~(CM_MASK | COLOR_MASK); break;
          case 53: this.bg |= BG_OVERLINE; break;
          case 55: this.bg &= ~BG_OVERLINE; break;
          case 38:
          case 48:
          case 58:
            i += this.extendedColor(params, i);
            break;
        }
      }
    }
  }

  /**
   * 38/48/58 with `;5;N`, `;2;R;G;B`, `:5:N`, `:2::R:G:B` or `:2:R:G:B`; returns how many
   * parameters it consumed after i. The normalisation into [target, mode, space, c1, c2, c3] is
   * xterm.js's _extractColor (MIT), so odd forms land where they land there.
   */
  private extendedColor(params: Params, pos: number): number {
    const accu = [0, 0, -1, 0, 0, 0];
    let cSpace = 0;
    let advance = 0;
    do {
      accu[advance + cSpace] = params.values[pos + advance]!;
      if (params.hasSubParams(pos + advance)) {
        const sub = params.subParams(pos + advance);
        let i = 0;
        do {
          if (accu[1] === 5) cSpace = 1;
          accu[advance + i + 1 + cSpace] = sub[i]!;
        } while (++i < sub.length && i + advance + 1 + cSpace < accu.length);
        break;
      }
      if ((accu[1] === 5 && advance + cSpace >= 2) || (accu[1] === 2 && advance + cSpace >= 5)) break;
      if (accu[1]) cSpace = 1;
    } while (++advance + pos < params.length && advance + cSpace < accu.length);
    for (let i = 2; i < accu.length; ++i) if (accu[i] === -1) accu[i] = 0;
    if (accu[0] === 38) this.fg = withColor(this.fg, accu[1]!, accu[3]!, accu[4]!, accu[5]!);
    else if (accu[0] === 48) this.bg = withColor(this.bg, accu[1]!, accu[3]!, accu[4]!, accu[5]!);
    return advance;
  }
}

function withColor(word: number, mode: number, c1: number, c2: number, c3: number): number {
  if (mode === 2) return (word & ~(CM_MASK | COLOR_MASK)) | CM_RGB | ((c1 & 0xff) << 16) | ((c2 & 0xff) << 8) | (c3 & 0xff);
  if (mode === 5) return (word & ~(CM_MASK | COLOR_MASK)) | CM_P256 | (c1 & 0xff);
  return word;
}
