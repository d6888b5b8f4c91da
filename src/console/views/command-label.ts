// How the console's command list shows an entry of the command timeline (docs/iolog.md,
// /REST/iolog/commands): the command as the terminal showed it when it was entered (`shown`:
// a recalled, completed, ^R-searched or expanded line as run) rather than the keys typed; a
// line typed at a no-echo prompt or to another program said as such, never a blank row.

/** The fields of a timeline entry the label uses. */
export interface TimelineEntry {
  line: string;
  shown?: string;
  hidden?: boolean;
  program?: boolean;
  recalled?: boolean;
  cwd?: string;
}

export interface CommandLabel {
  text: string;
  note: string;
}

export function commandLabel(c: TimelineEntry): CommandLabel {
  const where = c.cwd ? `in ${c.cwd}` : '';
  if (c.hidden) return { text: '(typed at a no-echo prompt)', note: where };
  const text = c.shown ?? c.line;
  const note = c.program ? `typed to a program${where ? `, ${where}` : ''}` : where;
  return { text: text !== '' ? text : c.recalled ? '(recalled line)' : '(empty line)', note };
}
