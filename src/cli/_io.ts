/**
 * What the CLI writes to: the process's streams, or a test's.
 *
 * @module
 */

/** Where the CLI's output goes; tests pass their own. */
export interface CliIo {
  /** Write to standard output. */
  stdout(text: string): void;
  /** Write to standard error. */
  stderr(text: string): void;
  /** Whether standard output is a terminal (progress bars, colors). */
  isTerminal: boolean;
  /** The terminal's width in columns; Infinity when output is not a terminal. */
  columns: number;
  /** Whether standard error is a terminal (progress bars). Default false. */
  stderrIsTerminal?: boolean;
}

/**
 * Thrown by a write to standard output once its reader has gone (`cli list
 * | head`): the command stops there and the CLI exits 0 without a word, as
 * a command killed by `SIGPIPE` would (Deno ignores the signal, so the write
 * fails instead).
 */
export class OutputClosed extends Error {
  constructor() {
    super("standard output was closed by its reader");
    this.name = "OutputClosed";
  }
}

/**
 * The process's own streams. A write to standard output after its reader
 * has gone throws {@linkcode OutputClosed}; one to standard error is dropped.
 *
 * @returns Standard output and error, and whether each is a terminal.
 */
export function denoIo(): CliIo {
  const enc = new TextEncoder();
  const write = (fd: { writeSync(p: Uint8Array): number }, s: string): void => {
    let bytes = enc.encode(s);
    while (bytes.length > 0) bytes = bytes.subarray(fd.writeSync(bytes));
  };
  const closed = (err: unknown): boolean =>
    err instanceof Deno.errors.BrokenPipe;
  const isTerminal = Deno.stdout.isTerminal();
  let columns = Number.POSITIVE_INFINITY;
  if (isTerminal) {
    try {
      columns = Deno.consoleSize().columns;
    } catch {
      columns = 80; // not a real console after all
    }
  }
  return {
    stdout: (s) => {
      try {
        write(Deno.stdout, s);
      } catch (err) {
        throw closed(err) ? new OutputClosed() : err;
      }
    },
    stderr: (s) => {
      try {
        write(Deno.stderr, s);
      } catch (err) {
        if (!closed(err)) throw err; // nobody is left to tell
      }
    },
    isTerminal,
    columns,
    stderrIsTerminal: Deno.stderr.isTerminal(),
  };
}
