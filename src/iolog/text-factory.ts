// Which TextExtractor the search uses: the replay module's screen model (ProcessedText), so a
// search sees what the screen showed (overwrites resolved, cursor moves applied). The simple
// control-sequence stripper (src/replay/text/control-stripper.ts) stays as the fallback should the replay module fail to load.
// stdout and stderr hold what went to a pipe or file, not to a tty: there a bare LF starts a new
// line at column 0 (as sudoreplay shows them), instead of the staircase a terminal would draw.
import { ControlStripper } from '../replay/text/control-stripper.js';
import type { TextExtractor } from '../replay/text/text-extractor.js';
import type { StreamName } from './timing.js';

export type { TextExtractor, TextLine } from '../replay/text/text-extractor.js';

/** Makes the extractor of one stream; `stream`: whose bytes it reads. */
export type TextExtractorFactory = (opts: { cols: number; rows: number; stream?: StreamName }) => TextExtractor;

/** The control-sequence stripper (the fallback, and tests). */
export const stripperFactory: TextExtractorFactory = (opts) => new ControlStripper(opts);


export async function textExtractorFactory(): Promise<TextExtractorFactory> {
  try {
    const { ProcessedText } = await import('../replay/processed-text.js');
    return (opts) => new ProcessedText({ cols: opts.cols, rows: opts.rows, lineFeedIsNewline: opts.stream === 'stdout' || opts.stream === 'stderr' });
  } catch {
    return stripperFactory;
  }
}
