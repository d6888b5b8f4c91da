// What the player reads from the service: the screen at a time (a keyframe: the escape
// sequences that repaint it, and the data-stream offset right after the last output applied)
// and chunks of the data stream from an offset. Nothing reads the whole session at once.
import { ApiError, type Api } from '../api.js';
import type { ChunkAnswer } from './frames.js';

export interface ScreenAt {
  at: number;
  cols: number;
  rows: number;
  /** Session length in seconds, when the server says. */
  duration?: number;
  /** Data-stream byte right after the last output applied. */
  offset: number;
  repaint: string;
  lines: string[];
  cursor?: { x: number; y: number; visible?: boolean };
}

export class SessionSource {
  /** false once the server has said it has no screen-at-time call (an older evio). */
  screenSupported: boolean | null = null;
  /** The damage warnings the answers carried (a corrupt stream, a cut timing), each once. */
  readonly warnings: string[] = [];
  /** Called when a new warning arrives (the session page shows a notice). */
  onWarnings: ((all: readonly string[]) => void) | null = null;

  private note(answer: { warnings?: unknown }): void {
    const fresh = Array.isArray(answer.warnings) ? answer.warnings.filter((w): w is string => typeof w === 'string' && !this.warnings.includes(w)) : [];
    if (!fresh.length) return;
    this.warnings.push(...fresh);
    this.onWarnings?.(this.warnings);
  }

  constructor(
    private readonly api: Api,
    readonly file: string,
  ) {}

  /** The screen at `at` seconds, or null when the server cannot tell (then replay from 0). */
  async screenAt(at: number, signal?: AbortSignal): Promise<ScreenAt | null> {
    if (this.screenSupported === false) return null;
    try {
      const s = await this.api.get<ScreenAt & { repaint?: string; offset?: number; warnings?: unknown }>('/REST/iolog/screen', { file: this.file, at: at.toFixed(3) }, signal);
      if (typeof s.repaint !== 'string' || typeof s.offset !== 'number') {
        this.screenSupported = false;
        return null;
      }
      this.screenSupported = true;
      this.note(s);
      return s;
    } catch (err) {
      if (err instanceof ApiError && err.isMissingRoute) {
        this.screenSupported = false;
        return null;
      }
      throw err;
    }
  }

  /** The screen now (at the end of what was written so far): where following a live session starts. */
  screenNow(signal?: AbortSignal): Promise<ScreenAt> {
    return this.api.get<ScreenAt>('/REST/iolog/screen', { file: this.file }, signal);
  }

  async chunk(start: number, len: number, signal?: AbortSignal): Promise<ChunkAnswer> {
    const c = await this.api.get<ChunkAnswer & { warnings?: unknown }>('/REST/iolog', { file: this.file, start, len }, signal);
    this.note(c);
    return c;
  }
}
