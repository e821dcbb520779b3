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
 * The process's own streams.
 *
 * @returns Standard output and error, and whether each is a terminal.
 */
export function denoIo(): CliIo {
  const enc = new TextEncoder();
  const write = (fd: { writeSync(p: Uint8Array): number }, s: string): void => {
    let bytes = enc.encode(s);
    while (bytes.length > 0) bytes = bytes.subarray(fd.writeSync(bytes));
  };
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
    stdout: (s) => write(Deno.stdout, s),
    stderr: (s) => write(Deno.stderr, s),
    isTerminal,
    columns,
    stderrIsTerminal: Deno.stderr.isTerminal(),
  };
}
