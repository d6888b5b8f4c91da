// How big the player's terminal is drawn: fitted to the width it has (the font scaled so that
// every column shows, whatever the session's width: 80, 132 or 200 columns), or zoomed by hand
// (then the terminal box scrolls, never the page), and in fullscreen fitted to the screen's width
// and height. Refits when the box changes size (window, fullscreen) and when the session resizes
// its terminal. The zoom bar (fit, smaller, larger, fullscreen) is built here too.
import type { Terminal } from '@xterm/xterm';
import { h } from '../dom.js';

export const BASE_FONT = 14;
export const MIN_FONT = 5;
export const MAX_FONT = 32;
/** Fitting never draws larger than this (a 40-column session is not blown up to 40 px). */
const FIT_MAX_FONT = 18;

export type FitMode = 'fit' | 'zoom';

export class TermFit {
  mode: FitMode = 'fit';
  private observer: ResizeObserver;
  private fitting = false;
  private onChange: () => void = () => {};

  /**
   * `box`: the element the terminal must fit in (it scrolls when zoomed larger);
   * `full`: the element shown fullscreen (the player card: terminal and controls).
   */
  constructor(
    private readonly term: Terminal,
    private readonly box: HTMLElement,
    private readonly full: HTMLElement,
  ) {
    this.observer = new ResizeObserver(() => this.refit());
    this.observer.observe(box);
    term.onResize(() => this.refit());
    document.addEventListener('fullscreenchange', this.onFullscreen);
    this.refit();
  }

  dispose(): void {
    this.observer.disconnect();
    document.removeEventListener('fullscreenchange', this.onFullscreen);
  }

  get fontSize(): number {
    return Number(this.term.options.fontSize ?? BASE_FONT);
  }

  get fullscreen(): boolean {
    return document.fullscreenElement === this.full;
  }

  private readonly onFullscreen = (): void => {
    this.full.classList.toggle('is-fullscreen', this.fullscreen);
    this.refit();
    this.onChange();
  };

  fit(): void {
    this.mode = 'fit';
    this.refit();
  }

  zoomBy(step: number): void {
    this.mode = 'zoom';
    this.setFont(Math.min(MAX_FONT, Math.max(MIN_FONT, this.fontSize + step)));
    this.onChange();
  }

  async toggleFullscreen(): Promise<void> {
    if (this.fullscreen) await document.exitFullscreen();
    else await this.full.requestFullscreen();
  }

  /** The terminal's drawn size in CSS pixels. */
  private drawn(): { width: number; height: number } {
    const screen = this.term.element?.querySelector<HTMLElement>('.xterm-screen');
    return { width: screen?.offsetWidth ?? 0, height: screen?.offsetHeight ?? 0 };
  }

  /** The room the box gives the terminal (its content box). */
  private room(): { width: number; height: number } {
    const cs = getComputedStyle(this.box);
    const padX = parseFloat(cs.paddingLeft) + parseFloat(cs.paddingRight);
    const padY = parseFloat(cs.paddingTop) + parseFloat(cs.paddingBottom);
    let height = Infinity;
    if (this.fullscreen) {
      // The screen less what is drawn below the terminal box (the controls).
      const below = this.full.getBoundingClientRect().bottom - this.box.getBoundingClientRect().bottom;
      height = window.innerHeight - this.box.getBoundingClientRect().top - below - padY;
    }
    return { width: this.box.clientWidth - padX, height };
  }

  private setFont(size: number): void {
    if (size !== this.fontSize) this.term.options.fontSize = size;
    this.box.dataset.fontSize = String(size);
    this.box.dataset.mode = this.mode;
  }

  /** In fit mode: the largest font (in half pixels) at which the whole terminal shows. */
  refit(): void {
    if (this.mode !== 'fit' || this.fitting || !this.term.element) {
      this.setFont(this.fontSize);
      return;
    }
    const room = this.room();
    if (room.width <= 0) return;
    this.fitting = true;
    try {
      let font = this.fontSize;
      let d = this.drawn();
      if (d.width <= 0) return;
      // Cell sizes round to device pixels: scale, then step down until it fits.
      const maxFont = this.fullscreen ? MAX_FONT : FIT_MAX_FONT;
      const scale = Math.min(room.width / d.width, room.height / d.height);
      let next = Math.min(maxFont, Math.max(MIN_FONT, Math.floor(font * scale * 2) / 2));
      for (let i = 0; i < 12; i++) {
        this.setFont(next);
        font = next;
        d = this.drawn();
        if ((d.width <= room.width && d.height <= room.height) || font <= MIN_FONT) break;
        next = Math.max(MIN_FONT, font - 0.5);
      }
    } finally {
      this.fitting = false;
    }
  }

  /** The zoom bar: fit to width, smaller, larger, fullscreen. */
  controls(): HTMLElement {
    const fitBtn = h('button', { type: 'button', class: 'small', title: 'Fit the terminal to the width (f)', 'data-action': 'fit' }, 'Fit');
    const smaller = h('button', { type: 'button', class: 'small', title: 'Smaller font (-)', 'aria-label': 'Zoom out' }, 'A−');
    const larger = h('button', { type: 'button', class: 'small', title: 'Larger font (+)', 'aria-label': 'Zoom in' }, 'A+');
    const fullBtn = h('button', { type: 'button', class: 'small', title: 'Fullscreen (Esc leaves)', 'data-action': 'fullscreen' }, '⤢ Fullscreen');
    fitBtn.addEventListener('click', () => {
      this.fit();
      this.onChange();
    });
    smaller.addEventListener('click', () => this.zoomBy(-1));
    larger.addEventListener('click', () => this.zoomBy(1));
    fullBtn.addEventListener('click', () => void this.toggleFullscreen().catch(() => {}));
    const sync = (): void => {
      fitBtn.setAttribute('aria-pressed', String(this.mode === 'fit'));
      fullBtn.textContent = this.fullscreen ? '⤡ Leave fullscreen' : '⤢ Fullscreen';
    };
    this.onChange = sync;
    sync();
    return h('span', { class: 'zoom', role: 'group', 'aria-label': 'Zoom' }, fitBtn, smaller, larger, fullBtn);
  }
}
