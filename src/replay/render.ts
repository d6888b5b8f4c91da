// The screen as text: one string per row of the visible screen.
import type { Screen } from './screen.js';

export interface RenderOptions {
  /** Drop trailing empty cells of each row (default true). */
  trimRight?: boolean;
  /** Drop empty rows at the bottom (default false). */
  trimBottom?: boolean;
}

export function renderScreen(screen: Screen, options: RenderOptions = {}): string[] {
  const trimRight = options.trimRight ?? true;
  const rows: string[] = [];
  for (let y = 0; y < screen.rows; y++) rows.push(screen.row(y).translateToString(trimRight, 0, screen.cols));
  if (options.trimBottom) while (rows.length && rows[rows.length - 1]!.trim() === '') rows.pop();
  return rows;
}
