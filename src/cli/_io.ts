/**
 * What the CLI writes to, and its argument parser.
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

/** A usage error: exit code 2. */
export class CliUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CliUsageError";
  }
}

/**
 * The error for work that failed (exit code 1), worded `Cannot <action>:
 * <state>`. Errors the library already words that way pass through; others
 * (the filesystem's `No such file or directory (os error 2)` …) get `action`
 * in front and their state in plain words.
 *
 * @param action What was being done: `Cannot open "a.jsonl"`.
 * @param err What went wrong.
 * @returns An error to throw.
 */
export function cliFailure(action: string, err: unknown): Error {
  if (err instanceof Error && err.message.startsWith("Cannot ")) return err;
  return new Error(`${action}: ${_state(err)}`, { cause: err });
}

function _state(err: unknown): string {
  if (err instanceof Deno.errors.NotFound) return "no such file or directory";
  if (err instanceof Deno.errors.AlreadyExists) return "it already exists";
  if (err instanceof Deno.errors.PermissionDenied) return "permission denied";
  if (err instanceof Deno.errors.IsADirectory) return "it is a directory";
  if (err instanceof Deno.errors.NotADirectory) return "not a directory";
  return err instanceof Error ? err.message : String(err);
}

/** The process's own streams. */
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

/** Parsed arguments: positionals and `--flag [value]` options. */
export interface ParsedArgs {
  positional: string[];
  flags: Map<string, string | true>;
}

/**
 * Parse `args` against the options a command knows.
 *
 * @param args The command's arguments.
 * @param spec Option name → whether it takes a value.
 * @returns The parsed arguments.
 * @throws {CliUsageError} For an unknown option or a missing value.
 */
export function parseArgs(
  args: string[],
  spec: Record<string, boolean>,
): ParsedArgs {
  const positional: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--") {
      positional.push(...args.slice(i + 1));
      break;
    }
    if (!a.startsWith("--") || a === "--") {
      positional.push(a);
      continue;
    }
    const eq = a.indexOf("=");
    const name = eq > 0 ? a.slice(2, eq) : a.slice(2);
    if (!(name in spec)) throw new CliUsageError(`unknown option "--${name}"`);
    if (!spec[name]) {
      flags.set(name, true);
      continue;
    }
    const value = eq > 0 ? a.slice(eq + 1) : args[++i];
    if (value === undefined) {
      throw new CliUsageError(`option "--${name}" needs a value`);
    }
    flags.set(name, value);
  }
  return { positional, flags };
}

/**
 * A string option's value.
 *
 * @param parsed Parsed arguments.
 * @param name The option.
 * @returns Its value, if given.
 */
export function flagValue(
  parsed: ParsedArgs,
  name: string,
): string | undefined {
  const v = parsed.flags.get(name);
  return typeof v === "string" ? v : undefined;
}

/**
 * The one positional argument a command takes.
 *
 * @param parsed Parsed arguments.
 * @param command The command's name, for the message.
 * @param name The argument's name in the usage: `<file>`.
 * @returns Its value.
 * @throws {CliUsageError} When it is missing or followed by another.
 */
export function onePositional(
  parsed: ParsedArgs,
  command: string,
  name: string,
): string {
  const [value, extra] = parsed.positional;
  if (value === undefined) {
    throw new CliUsageError(`${command}: missing ${name}`);
  }
  if (extra !== undefined) {
    noPositionals({ ...parsed, positional: [extra] }, command);
  }
  return value;
}

/**
 * Check that a command got no positional argument.
 *
 * @param parsed Parsed arguments.
 * @param command The command's name, for the message.
 * @throws {CliUsageError} When it got one.
 */
export function noPositionals(parsed: ParsedArgs, command: string): void {
  const [extra] = parsed.positional;
  if (extra !== undefined) {
    throw new CliUsageError(`${command}: unexpected argument "${extra}"`);
  }
}
