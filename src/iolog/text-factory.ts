// Which TextExtractor the search uses: the replay module's screen model (ProcessedText), so a
// search sees what the screen showed (overwrites resolved, cursor moves applied). The simple
// control-sequence stripper in text.ts stays as the fallback should the replay module fail to load.
import { stripperFactory, type TextExtractorFactory } from './text.js';

export async function textExtractorFactory(): Promise<TextExtractorFactory> {
  try {
    const { ProcessedText } = await import('../replay/processed-text.js');
    return (opts) => new ProcessedText(opts);
  } catch {
    return stripperFactory;
  }
}
