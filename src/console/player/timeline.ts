// The timeline: a slider (keyboard: Home/End; the page's ←/→ move it) with the played part,
// ticks for commands and search hits, and click-to-seek anywhere on it.
import { clock, h } from '../dom.js';

export interface Marker {
  t: number;
  kind: 'command' | 'hit';
  label: string;
}

export class Timeline {
  readonly el: HTMLElement;
  private readonly fill: HTMLElement;
  private readonly marks: HTMLElement;
  private readonly hover: HTMLElement;
  private duration = 0;
  private markers: Marker[] = [];

  constructor(private readonly onSeek: (t: number) => void) {
    this.fill = h('div', { class: 'tl-fill' });
    this.marks = h('div', { class: 'tl-marks' });
    this.hover = h('div', { class: 'tl-hover', hidden: true });
    this.el = h(
      'div',
      { class: 'timeline', role: 'slider', tabindex: 0, 'aria-label': 'Position in the session', 'aria-valuemin': 0, 'aria-valuemax': 0, 'aria-valuenow': 0 },
      h('div', { class: 'tl-track' }, this.fill),
      this.marks,
      this.hover,
    );
    // Click a tick to go to its moment, anywhere else to go there; drag to scrub (the seek
    // happens on release: one screen call, not one per pixel).
    let dragging = false;
    this.el.addEventListener('pointerdown', (ev) => {
      if (ev.button !== 0 || (ev.target as HTMLElement).closest('.tl-mark')) return;
      dragging = true;
      this.el.setPointerCapture(ev.pointerId);
      this.setTime(this.timeAt(ev.clientX));
    });
    this.el.addEventListener('pointermove', (ev) => {
      if (dragging) this.setTime(this.timeAt(ev.clientX));
    });
    this.el.addEventListener('pointerup', (ev) => {
      if (!dragging) return;
      dragging = false;
      this.onSeek(this.timeAt(ev.clientX));
    });
    this.el.addEventListener('pointercancel', () => (dragging = false));
    this.el.addEventListener('click', (ev) => {
      const m = (ev.target as HTMLElement).closest<HTMLElement>('.tl-mark');
      if (m?.dataset.t) this.onSeek(Number(m.dataset.t));
    });
    this.el.addEventListener('mousemove', (ev) => {
      if (!this.duration) return;
      const t = this.timeAt(ev.clientX);
      const m = (ev.target as HTMLElement).closest<HTMLElement>('.tl-mark');
      this.hover.hidden = false;
      this.hover.textContent = m ? `${clock(Number(m.dataset.t))}  ${m.dataset.label ?? ''}` : clock(t);
      const r = this.el.getBoundingClientRect();
      this.hover.style.left = `${Math.min(Math.max(ev.clientX - r.left, 0), r.width)}px`;
    });
    this.el.addEventListener('mouseleave', () => (this.hover.hidden = true));
    this.el.addEventListener('keydown', (ev) => {
      if (ev.key === 'Home') this.onSeek(0);
      else if (ev.key === 'End') this.onSeek(this.duration);
      else return;
      ev.preventDefault();
    });
  }

  private timeAt(clientX: number): number {
    const r = this.el.getBoundingClientRect();
    return Math.min(Math.max((clientX - r.left) / r.width, 0), 1) * this.duration;
  }

  setDuration(d: number): void {
    if (d === this.duration) return;
    this.duration = d;
    this.el.setAttribute('aria-valuemax', d.toFixed(1));
    this.renderMarks();
  }

  setMarkers(markers: Marker[]): void {
    this.markers = markers;
    this.renderMarks();
  }

  setTime(t: number): void {
    const f = this.duration > 0 ? Math.min(t / this.duration, 1) : 0;
    this.fill.style.width = `${(f * 100).toFixed(3)}%`;
    this.el.setAttribute('aria-valuenow', t.toFixed(1));
    this.el.setAttribute('aria-valuetext', `${clock(t)} of ${clock(this.duration)}`);
  }

  private renderMarks(): void {
    this.marks.replaceChildren();
    if (!this.duration) return;
    for (const m of this.markers) {
      const left = Math.min(Math.max(m.t / this.duration, 0), 1) * 100;
      const mark = h('span', { class: `tl-mark tl-${m.kind}`, 'data-t': String(m.t), 'data-label': m.label, 'aria-hidden': 'true' });
      mark.style.left = `${left.toFixed(3)}%`;
      this.marks.append(mark);
    }
  }
}
