/**
 * The CLI's one door to the process: its output streams, its arguments,
 * exit code, environment and signals. Everything else in `src/cli/` writes
 * through a {@linkcode CliIo} (tests pass their own) and reads files through
 * the library or `src/_fs.ts`.
 *
 * @module
 */

import { realpathSync, writeSync } from "node:fs";
import process from "node:process";
import { isatty } from "node:tty";

/** Deno's namespace where Deno is the runtime, else undefined (Node, Bun). */
const _deno = (globalThis as { Deno?: typeof Deno }).Deno;

/** Where the CLI's output goes; tests pass their own. */
export interface CliIo {
  /** Write to standard output. */
  stdout(text: string): void;
  /** Write to standard error. */
  stderr(text: string): void;
  /** Whether standard output is a terminal (colours, marks). */
  isTerminal: boolean;
  /** The terminal's width in columns; Infinity when output is not a terminal. */
  columns: number;
  /** Whether standard error is a terminal (progress bars). Default false. */
  stderrIsTerminal?: boolean;
  /**
   * The program's name in usage lines and hints, as the user would type it
   * again (see {@linkcode programName}). Default {@linkcode DEFAULT_PROGRAM}.
   */
  program?: string;
}

/**
 * The program's name when nothing says otherwise: the command the README
 * installs (`deno install -g -A -n xdev-session jsr:@xdev/session/cli`).
 */
export const DEFAULT_PROGRAM = "xdev-session";

/**
 * The variable that names the program: the project's `deno task cli` sets
 * it to `deno task cli`; a wrapper or an alias of another name can set it.
 */
export const PROGRAM_VARIABLE = "XDEV_SESSION_PROG";

/**
 * How the program names itself in usage lines and hints: `$XDEV_SESSION_PROG`
 * when set (the project's tasks set it to `deno task cli`), else
 * `xdev-session`. Neither `Deno.mainModule` nor the arguments can tell: an
 * installed command is a shell script that runs `deno run <url>`, so the
 * process sees the module's URL whatever the script is called, and
 * `deno task` says which folder it ran in (`INIT_CWD`), not which task.
 *
 * @returns The name, e.g. `xdev-session` or `deno task cli`.
 */
export function programName(): string {
  const name = envVar(PROGRAM_VARIABLE)?.trim() ?? "";
  return name === "" ? DEFAULT_PROGRAM : name;
}

/**
 * An environment variable, or undefined when it is unset or the process may
 * not read it: the permission is queried first, so a run without `-E` is
 * never stopped by a prompt for a variable that only tunes the output.
 *
 * @param name The variable.
 * @returns Its value, or undefined.
 */
export function envVar(name: string): string | undefined {
  if (_deno === undefined) return process.env[name]; // Node, Bun: no permissions
  try {
    const state = _deno.permissions.querySync({ name: "env", variable: name });
    return state.state === "granted" ? _deno.env.get(name) : undefined;
  } catch {
    return undefined; // no permission API here: as if unset
  }
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
    columns: isTerminal ? _columns() : Number.POSITIVE_INFINITY,
    stderrIsTerminal: Deno.stderr.isTerminal(),
    program: programName(),
  };
}

/**
 * The process's own streams on Node and Bun, as {@linkcode denoIo} has them
 * on Deno: writes are synchronous (`fs.writeSync`), so output keeps its
 * order with the exit; a pipe whose reader is gone (`EPIPE`) throws
 * {@linkcode OutputClosed} from standard output.
 *
 * @returns Standard output and error, and whether each is a terminal.
 */
export function nodeIo(): CliIo {
  const enc = new TextEncoder();
  const write = (fd: number, s: string): void => {
    let bytes = enc.encode(s);
    while (bytes.length > 0) {
      try {
        bytes = bytes.subarray(writeSync(fd, bytes));
      } catch (err) {
        // A non-blocking pipe that is full: try again until it drains.
        if ((err as { code?: unknown }).code !== "EAGAIN") throw err;
      }
    }
  };
  const closed = (err: unknown): boolean =>
    (err as { code?: unknown } | null)?.code === "EPIPE";
  const isTerminal = isatty(1);
  return {
    stdout: (s) => {
      try {
        write(1, s);
      } catch (err) {
        throw closed(err) ? new OutputClosed() : err;
      }
    },
    stderr: (s) => {
      try {
        write(2, s);
      } catch (err) {
        if (!closed(err)) throw err; // nobody is left to tell
      }
    },
    isTerminal,
    columns: isTerminal
      ? (process.stdout.columns ?? 80)
      : Number.POSITIVE_INFINITY,
    stderrIsTerminal: isatty(2),
    program: programName(),
  };
}

function _columns(): number {
  try {
    return Deno.consoleSize().columns;
  } catch {
    return 80; // not a real console after all
  }
}

/**
 * Run `main` with the process's arguments and streams, and set the exit
 * code it returns.
 *
 * @param main The CLI's entry point.
 */
export async function runProcess(
  main: (args: string[], io: CliIo) => Promise<number>,
): Promise<void> {
  if (_deno !== undefined) _deno.exitCode = await main(_deno.args, denoIo());
  else {
    quietSqliteWarning(process);
    process.exitCode = await main(process.argv.slice(2), nodeIo());
  }
}

/**
 * Keep Node's one-time "SQLite is an experimental feature" warning (printed
 * when the index first loads `node:sqlite`) off the command's standard
 * error: the CLI's output is the user's, and the index is ours to vouch
 * for. Every other warning passes. The CLI only: the library never
 * touches its host's warnings.
 *
 * @example
 * ```ts
 * import { quietSqliteWarning } from "./_io.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * const seen: unknown[] = [];
 * const host = { emitWarning: (w: unknown, t?: unknown) => void seen.push([w, t]) };
 * quietSqliteWarning(host);
 * host.emitWarning("SQLite is an experimental feature", "ExperimentalWarning");
 * host.emitWarning("something else", "Warning");
 * deepEqual(seen, [["something else", "Warning"]]);
 * ```
 *
 * @param host The process (its `emitWarning` is wrapped).
 */
export function quietSqliteWarning(
  host: { emitWarning: (...args: never[]) => unknown },
): void {
  const emit = host.emitWarning as (...args: unknown[]) => unknown;
  host.emitWarning = ((warning: unknown, ...rest: unknown[]) => {
    const text = warning instanceof Error ? warning.message : String(warning);
    const type = warning instanceof Error
      ? warning.name
      : typeof rest[0] === "string"
      ? rest[0]
      : (rest[0] as { type?: unknown } | undefined)?.type;
    if (type === "ExperimentalWarning" && /^SQLite\b/.test(text)) return;
    return emit.call(host, warning, ...rest);
  }) as typeof host.emitWarning;
}

/**
 * Whether the module of `meta` is the program's entry: `import.meta.main`
 * where the runtime has it (Deno, Bun, Node >= 24.2), else (Node 22) whether
 * it is the file `node` was given.
 *
 * @param meta The module's `import.meta`.
 * @returns True for the entry module.
 */
export function isMain(meta: ImportMeta): boolean {
  const main = (meta as { main?: boolean }).main;
  if (typeof main === "boolean") return main;
  const entry = process.argv[1];
  const self = (meta as { filename?: string }).filename;
  if (entry === undefined || self === undefined) return false;
  try {
    return realpathSync(entry) === realpathSync(self);
  } catch {
    return false; // the entry is not a file: not this module
  }
}

/** The process's own streams, on the runtime this is: {@linkcode denoIo} or {@linkcode nodeIo}. */
export function processIo(): CliIo {
  return _deno !== undefined ? denoIo() : nodeIo();
}

/**
 * Whether the user asked for no colours (`NO_COLOR` set and not empty,
 * as https://no-color.org asks).
 *
 * @returns True when colours are off.
 */
export function noColor(): boolean {
  return (envVar("NO_COLOR") ?? "") !== "";
}

/**
 * Whether standard output may carry colours and other escapes: it is a
 * terminal and `NO_COLOR` is not set. Every escape the CLI prints for looks
 * (search's highlight, tree's marks) asks this, and only this.
 *
 * @param io The output.
 * @returns True when escapes may be printed.
 */
export function colorOn(io: Pick<CliIo, "isTerminal">): boolean {
  return io.isTerminal && !noColor();
}

/**
 * Call `handler` on Ctrl-C (and SIGTERM) instead of dying mid-line, until
 * the returned function is called.
 *
 * @param handler What to do on the signal.
 * @returns What stops listening.
 */
export function onInterrupt(handler: () => void): () => void {
  const signals = ["SIGINT", "SIGTERM"] as const;
  const each = (listen: boolean) => {
    for (const s of signals) {
      try {
        if (_deno === undefined) {
          if (listen) process.on(s, handler);
          else process.off(s, handler);
        } else if (listen) _deno.addSignalListener(s, handler);
        else _deno.removeSignalListener(s, handler);
      } catch {
        // Signals are not offered here (Windows has no SIGTERM): the
        // default handling stays.
      }
    }
  };
  each(true);
  return () => each(false);
}
