// Which TextExtractor the search uses. For now the control-sequence stripper; the replay
// module's screen-model ProcessedText is meant to take its place behind the same interface.
import { stripperFactory, type TextExtractorFactory } from './text.js';

export async function textExtractorFactory(): Promise<TextExtractorFactory> {
  return stripperFactory;
}
