// Shell prompts, recognised in the text of the output row before the cursor (what a person
// sees while the program waits for a line). Two questions: is this a prompt (the program is
// ready for the next line), and does it show the working directory?
//
// Recognised as showing a directory (DIR must start with / or ~; `~` is kept as shown):
//   user@host:DIR$          Debian/Ubuntu bash and zsh defaults (also # % > and a "(venv) " prefix)
//   [user@host DIR]$        Fedora/RHEL (DIR is only the last component there: used when it is / or ~…)
//   DIR$  / DIR #           a bare \w prompt
// Recognised as a prompt without a directory: any row of at most PROMPT_MAX characters that
// ends with $, #, %, > or ] followed by at most one space (`$ `, `sh-5.2$ `, `>>> `, `mysql> `).
// Not recognisable: prompts that end otherwise (`λ `, powerline glyphs), right prompts drawn
// after the cursor moved, and programs that draw their input line elsewhere (full-screen).

const PROMPT_MAX = 300;
const ENDS_LIKE_PROMPT = /[$#%>\]] ?$/;
const USER_AT_HOST = /(?:^|\s)[\w.-]+@[\w.-]+:([~/][^\s]*?) ?[$#%>] ?$/;
const BRACKETED = /\[[\w.-]+@[\w.-]+ ([~/][^\]]*)\] ?[$#%>] ?$/;
const BARE_DIR = /^([~/][^\s]*?) ?[$#%>] ?$/;

export interface Prompt {
  /** The directory the prompt shows, if it shows one. */
  cwd?: string;
}

/** The prompt `row` (text before the cursor) is, or null when it does not look like one. */
export function recognisePrompt(row: string): Prompt | null {
  const text = row.trimStart();
  if (text.length === 0 || text.length > PROMPT_MAX || !ENDS_LIKE_PROMPT.test(text)) return null;
  const m = USER_AT_HOST.exec(text) ?? BRACKETED.exec(text) ?? BARE_DIR.exec(text);
  return m ? { cwd: m[1]! } : {};
}
