// The items of a replay (DESIGN §4): text as it was written, and control functions as tokens
// named after terminfo capabilities. docs/replay.md lists every token.

export interface TokenItem {
  type: 'token';
  /** A terminfo capability name (cup, el, nel, ...), a renamed one (absx, htab), sz, sgr/sgr0, or a generic name (csi, esc, ctrl, osc, dcs, sos, pm, apc). */
  name: string;
  /** Parameters: the capability's arguments (0-based positions for cup/absx/vpa/csr), sz's [cols, rows], or a generic sequence's parameters. */
  values?: number[];
  /** Generic csi/esc/dcs tokens: the private marker, intermediates and final byte, e.g. "?h". */
  id?: string;
  /** Colon sub-parameters, aligned with `values` ([] where a parameter has none; -1 = omitted). */
  sub?: number[][];
  /** Payload of osc, dcs, sos, pm and apc tokens (capped; see `truncated`). */
  data?: string;
  /** The payload was longer than the cap and was cut. */
  truncated?: boolean;
  /** The string was aborted (CAN, SUB or another control) instead of ended by ST/BEL. */
  aborted?: boolean;
}

export interface TextItem {
  type: 'text';
  /** Time of the write that carried the text, as the caller gave it (ms from the session's start). */
  time: number;
  value: string;
}

export type ReplayItem = TokenItem | TextItem;
