// The seam between the search and the readers of terminal text: the control stripper
// (control-stripper.ts), the screen model's processed text (../processed-text.ts) and the typed
// input line editor (typed-input/) all give lines of this shape.

export interface TextLine {
  text: string;
  /** When the line got its first character (or ended, if empty): the time passed to write(). */
  timeMs: number;
  /**
   * When the line was complete (the time of the write that finished it: a typed line's Enter),
   * if the extractor knows it; else timeMs is taken for it.
   */
  endMs?: number;
}

export interface TextExtractor {
  /** `startsRecord` false: the bytes continue the timing record of the write before (a long record read in pieces). */
  write(bytes: Uint8Array, timeMs: number, startsRecord?: boolean): void;
  resize(cols: number, rows: number): void;
  /** Lines finished since the last call. */
  takeLines(): TextLine[];
  /** Finishes the stream: the lines still open, including an unterminated last one. */
  end(): TextLine[];
}
