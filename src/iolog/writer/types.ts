// The writer's API: what the log server's protocol side (src/logsrv, src/app) hands the storage
// and what it gets back. The shapes follow sudo's log-server protocol (sudo_logsrv.proto(5)):
// TimeSpec, the InfoMessage values of an Accept, the ExitMessage fields.

/** A time or a delay: whole seconds (may exceed 2^31; exact up to 2^53) and nanoseconds 0..999999999. */
export interface TimeSpec {
  sec: number;
  nsec: number;
}

/** One InfoMessage value of an Accept (numval int64 given as a number, strlistval, numlistval). */
export type InfoValue = string | number | string[] | number[];

export interface IologWriterOptions {
  /** Absolute directory template (sudo's iolog_dir), escapes allowed, e.g. "/srv/evio/iolog" or "/srv/evio/iolog/%{user}". */
  dir: string;
  /** File template (sudo's iolog_file), default "%{seq}". */
  file: string;
  /** Roots the resolved session directory must stay inside (evio's iologdirs, absolute, resolved). */
  roots: string[];
  /** gzip each stream and timing (sudo's compress_io / logsrvd iolog_compress). */
  compress: boolean;
  /** Default 0o600; directories get x bits where r is set (0o700). */
  fileMode: number;
  /** Default 2176782336 (36^6): %{seq} IDs run 1 .. maxSeq-1, then wrap to 1. */
  maxSeq?: number;
  /** IANA zone of the strftime escapes; default the process's local zone (as sudo's localtime). */
  timeZone?: string;
  /** gzip level 1-9 when compress is on; default 6 (zlib's default, as sudo's gzdopen "w"). */
  compressLevel?: number;
  /** How long a create waits for the seq counter's lock, ms; default 10000. */
  lockTimeoutMs?: number;
  /**
   * %{seq} IDs taken ahead per lock of the counter, handed out from memory (seq.ts); default 0:
   * seq holds the last ID used, exactly as sudo keeps it. The log server takes 15.
   */
  seqReserve?: number;
}

/** What an ExitMessage tells (sudo_logsrv.proto(5)). */
export interface ExitInfo {
  runTime?: TimeSpec;
  exitValue: number;
  /** Signal name without "SIG" when the command was killed. */
  signal?: string;
  dumpedCore?: boolean;
  error?: string;
  /** Matches masked before writing, per redaction rule (never the secrets): `redactions` in log.json. */
  redactions?: Record<string, number>;
}

/** The sudo I/O stream numbers, as in the timing file and sudo's IOFD_* (0 stdin ... 4 ttyout). */
export type IoStream = 0 | 1 | 2 | 3 | 4;

export interface IologSession {
  /** Absolute session directory. */
  readonly dir: string;
  /** Relative to the root it lies in (e.g. "00/00/01"). */
  readonly relPath: string;
  /** sudo's session ID: "000001" for XX/XX/XX, else relPath. */
  readonly tsid: string;
  /** Sum of delays of every record written so far (winsize and suspend included): what a commit point reports. */
  readonly elapsed: TimeSpec;
  /** Bytes taken by writeIo/writeWinsize/writeSuspend that are not yet handed to the kernel (for back-pressure). */
  readonly buffered: number;
  /** Appends one I/O record: data to the stream file (0 stdin, 1 stdout, 2 stderr, 3 ttyin, 4 ttyout), a timing line. Synchronous into buffers/page cache; not yet durable. */
  writeIo(stream: IoStream, delay: TimeSpec, data: Uint8Array): void;
  writeWinsize(delay: TimeSpec, rows: number, cols: number): void;
  writeSuspend(delay: TimeSpec, signal: string): void;
  /** Hands what was written to the kernel without syncing (readers see it); not a commit point. */
  writeOut(): Promise<void>;
  /** Makes everything written so far durable (stream files, timing: written and fsync'ed, gzip with Z_SYNC_FLUSH). Resolves to `elapsed` as of the call. Concurrent calls are serialised. */
  flush(): Promise<TimeSpec>;
  /** Ends the session: flush, append the exit to log.json as logsrvd does, then clear the write bits of `timing` (the completion marker). */
  finish(exit: ExitInfo): Promise<void>;
  /** Closes the files without completing (connection lost: the session stays resumable). */
  close(): Promise<void>;
}
