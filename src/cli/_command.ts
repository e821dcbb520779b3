/**
 * The one helper every CLI command is declared with. A command says once
 * what it takes (its name, its help, its options and whether each takes a
 * value, its positional arguments); the helper parses the arguments, answers
 * `--help`, words usage errors, and turns what the command returns or throws
 * into an exit code: 0 success, 1 the work failed, 2 bad usage. Work that
 * fails is worded `Cannot <action> "<file>": <state>` ({@linkcode failure}).
 *
 * @module
 */

import { errorCode } from "../_fs.ts";
import { sanitize } from "./_format.ts";
import { type CliIo, OutputClosed } from "./_io.ts";

/**
 * How an option is given: `switch` (`--json`), `value` (`--to DST` or
 * `--to=DST`), or `required` (a value the command cannot run without).
 */
export type FlagKind = "switch" | "value" | "required";

/** A command as declared: what it takes, and its work. */
export interface CommandSpec<F extends string> {
  /** The word after `cli`: `show`. */
  name: string;
  /** What `--help` prints (exit code 0). */
  help: string;
  /** The options by name, without `--`; `--help` is always known. */
  flags: Readonly<Record<F, FlagKind>>;
  /** The positional arguments, each required, named as in the usage: `<file>`. */
  args?: readonly string[];
  /** The words the first positional argument must be one of (`blobs gc`). */
  subcommands?: readonly string[];
  /**
   * The work, run once the arguments are sound: it returns the exit code
   * (0, or 1 when part of the work failed) and throws a
   * {@linkcode CliUsageError} for bad usage only it can see.
   */
  run(call: Call<F>, io: CliIo): Promise<number>;
}

/** A command's parsed arguments, as its {@linkcode CommandSpec.run} gets them. */
export interface Call<F extends string> {
  /** The command's name for messages, with its subcommand: `blobs gc`. */
  readonly name: string;
  /** The subcommand, for a command that has them. */
  readonly subcommand: string | undefined;
  /** The positional arguments after the subcommand, as many as declared. */
  readonly args: readonly string[];
  /** The positional argument at `index` (default 0). */
  arg(index?: number): string;
  /** An option's value, when given (the last, when given more than once). */
  value(flag: F): string | undefined;
  /** Every value an option was given, in order (`--data-dir A --data-dir B`). */
  values(flag: F): readonly string[];
  /** Whether an option was given. */
  has(flag: F): boolean;
  /** A usage error in this command's name, `<name>: <message>`, to throw. */
  usageError(message: string): CliUsageError;
}

/** A declared command, ready to run. */
export interface Command {
  /** The word after `cli`. */
  readonly name: string;
  /**
   * Parse `args` and run the command.
   *
   * @param args The arguments after the command's name.
   * @param io Where output goes.
   * @returns The exit code.
   * @throws {CliUsageError} For bad usage.
   */
  run(args: readonly string[], io: CliIo): Promise<number>;
}

/**
 * A command whose module is loaded only when it runs: a process that runs
 * one command loads that command's modules alone.
 *
 * @param name The word after `cli`, as the loaded command names itself.
 * @param load What loads the command's module (it exports `command`).
 * @returns The command.
 */
export function lazyCommand(
  name: string,
  load: () => Promise<{ command: Command }>,
): Command {
  return {
    name,
    run: async (args, io) => {
      const { command } = await load();
      if (command.name !== name) {
        throw new Error(`the command "${name}" loaded "${command.name}"`);
      }
      return await command.run(args, io);
    },
  };
}

/** A usage error: exit code 2, and the usage printed after it. */
export class CliUsageError extends Error {
  /**
   * A usage error.
   *
   * @param message What is wrong with the arguments.
   */
  constructor(message: string) {
    super(message);
    this.name = "CliUsageError";
  }
}

/** Parsed arguments: positionals and `--flag [value]` options. */
export interface ParsedArgs {
  /** The arguments that are no option, in order (all of those after `--`). */
  positional: string[];
  /** The options given: a value, or true for a switch. The last one wins. */
  flags: Map<string, string | true>;
  /** Every value of each option that takes one, in order. */
  repeated: Map<string, string[]>;
}

/**
 * Parse `args` against the options a command knows. An argument that starts
 * with `--` is an option (its value follows it, or `=` inside it); `--`
 * makes every later argument positional; anything else is positional.
 *
 * @param args The command's arguments.
 * @param spec Option name → whether it takes a value.
 * @returns The parsed arguments.
 * @throws {CliUsageError} For an unknown option or a missing value.
 */
export function parseArgs(
  args: readonly string[],
  spec: Readonly<Record<string, boolean>>,
): ParsedArgs {
  const positional: string[] = [];
  const flags = new Map<string, string | true>();
  const repeated = new Map<string, string[]>();
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--") {
      positional.push(...args.slice(i + 1));
      break;
    }
    if (!a.startsWith("--")) {
      positional.push(a);
      continue;
    }
    const eq = a.indexOf("=");
    const name = eq > 0 ? a.slice(2, eq) : a.slice(2);
    if (!Object.hasOwn(spec, name)) {
      throw new CliUsageError(`unknown option "--${name}"`);
    }
    if (!spec[name]) {
      flags.set(name, true);
      continue;
    }
    const value = eq > 0 ? a.slice(eq + 1) : args[++i];
    if (value === undefined) {
      throw new CliUsageError(`option "--${name}" needs a value`);
    }
    flags.set(name, value);
    repeated.set(name, [...repeated.get(name) ?? [], value]);
  }
  return { positional, flags, repeated };
}

/**
 * Declare a command. Its arguments are checked in this order: unknown options
 * and missing values, `--help`, the subcommand, the positional arguments
 * (missing, then unexpected), the required options.
 *
 * @param spec What the command takes, and its work.
 * @returns The command, for {@linkcode runCli}.
 */
export function defineCommand<F extends string>(
  spec: CommandSpec<F>,
): Command {
  const kinds = Object.entries<FlagKind>(spec.flags);
  const takesValue: Record<string, boolean> = { help: false };
  for (const [flag, kind] of kinds) takesValue[flag] = kind !== "switch";
  return {
    name: spec.name,
    run: async (args, io) => {
      const parsed = parseArgs(args, takesValue);
      if (parsed.flags.has("help")) {
        io.stdout(spec.help);
        return 0;
      }
      let name = spec.name;
      let rest = parsed.positional;
      let subcommand: string | undefined;
      if (spec.subcommands !== undefined) {
        [subcommand, ...rest] = rest;
        if (subcommand === undefined) {
          throw new CliUsageError(
            `${name}: missing ${spec.subcommands.join(" or ")}`,
          );
        }
        if (!spec.subcommands.includes(subcommand)) {
          throw new CliUsageError(
            `${name}: unknown subcommand "${subcommand}"`,
          );
        }
        name = `${name} ${subcommand}`;
      }
      const wanted = spec.args ?? [];
      const missing = wanted[rest.length];
      if (missing !== undefined) {
        throw new CliUsageError(`${name}: missing ${missing}`);
      }
      if (rest.length > wanted.length) {
        throw new CliUsageError(
          `${name}: unexpected argument "${rest[wanted.length]}"`,
        );
      }
      for (const [flag, kind] of kinds) {
        if (kind === "required" && !parsed.flags.has(flag)) {
          throw new CliUsageError(`${name}: missing --${flag}`);
        }
      }
      return await spec.run(_call(name, subcommand, rest, parsed), io);
    },
  };
}

function _call<F extends string>(
  name: string,
  subcommand: string | undefined,
  args: readonly string[],
  parsed: ParsedArgs,
): Call<F> {
  return {
    name,
    subcommand,
    args,
    arg: (index = 0) => args[index]!,
    value: (flag) => {
      const v = parsed.flags.get(flag);
      return typeof v === "string" ? v : undefined;
    },
    values: (flag) => parsed.repeated.get(flag) ?? [],
    has: (flag) => parsed.flags.has(flag),
    usageError: (message) => new CliUsageError(`${name}: ${message}`),
  };
}

/** The program's own usage and its commands, for {@linkcode runCli}. */
export interface CliSpec {
  /** What `cli`, `cli help` and every usage error print. */
  usage: string;
  /** The commands. */
  commands: readonly Command[];
}

/**
 * Run the command `args` names and settle the exit code: what the command
 * returns; 1 when it throws (the message on standard error as
 * `error: <message>`); 2 for a usage error (the message, then the usage);
 * 0, silently, when standard output's reader has gone ({@linkcode OutputClosed}).
 * Without a command, the usage is printed and the exit code is 2; with `help`,
 * `--help` or `-h` it is 0. Messages are printed as {@linkcode sanitize} makes
 * them: a path named in one cannot drive the terminal.
 *
 * @param cli The usage and the commands.
 * @param args The arguments after the program name.
 * @param io Where output goes.
 * @returns The exit code.
 */
export async function runCli(
  cli: CliSpec,
  args: readonly string[],
  io: CliIo,
): Promise<number> {
  const [name, ...rest] = args;
  try {
    if (name === undefined || ["help", "--help", "-h"].includes(name)) {
      io.stdout(`${cli.usage}\n`);
      return name === undefined ? 2 : 0;
    }
    const command = cli.commands.find((c) => c.name === name);
    if (command === undefined) {
      throw new CliUsageError(`unknown command "${name}"`);
    }
    return await command.run(rest, io);
  } catch (err) {
    if (err instanceof OutputClosed) return 0; // `cli list | head`: done
    if (err instanceof CliUsageError) {
      io.stderr(`error: ${sanitize(err.message)}\n\n${cli.usage}\n`);
      return 2;
    }
    printError(io, err instanceof Error ? err.message : String(err));
    return 1;
  }
}

/** Filesystem states in plain words, by POSIX code. */
const _STATES: Readonly<Record<string, string>> = {
  ENOENT: "no such file or directory",
  EEXIST: "it already exists",
  EACCES: "permission denied",
  EPERM: "permission denied",
  EISDIR: "it is a folder",
  ENOTDIR: "not a folder",
};

/**
 * The error for work that failed (exit code 1), worded `Cannot <action>:
 * <state>`. Errors the library already words that way pass through; others
 * (the filesystem's `No such file or directory (os error 2)` …) get `action`
 * in front and their state in plain words.
 *
 * @param action What was being done, after `Cannot`: `open "a.jsonl"`.
 * @param err What went wrong (kept as the `cause`).
 * @returns An error to throw or report.
 */
export function failure(action: string, err: unknown): Error {
  if (err instanceof OutputClosed) return err; // not a failure: the CLI exits 0
  if (err instanceof Error && err.message.startsWith("Cannot ")) return err;
  const state = _STATES[errorCode(err) ?? ""] ??
    (err instanceof Error ? err.message : String(err));
  return new Error(`Cannot ${action}: ${state}`, { cause: err });
}

/**
 * Do `work`, or fail with {@linkcode failure}: `Cannot <action>: <state>`.
 *
 * @param action What `work` does, after `Cannot`: `fork "a.jsonl"`.
 * @param work The work.
 * @returns What `work` returns.
 * @throws {Error} What `work` threw, worded by {@linkcode failure}.
 */
export async function attempt<T>(
  action: string,
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw failure(action, err);
  }
}

/**
 * Print `error: <message>` on standard error, the message made safe for a
 * terminal by {@linkcode sanitize} (it may name a file, and a file's name
 * may hold escapes).
 *
 * @param io Where it goes.
 * @param message The message.
 */
export function printError(io: Pick<CliIo, "stderr">, message: string): void {
  io.stderr(`error: ${sanitize(message)}\n`);
}

/**
 * Print a note (a warning, a file skipped) on standard error, one line made
 * safe for a terminal.
 *
 * @param io Where it goes.
 * @param message The note.
 */
export function printNote(io: Pick<CliIo, "stderr">, message: string): void {
  io.stderr(`${sanitize(message)}\n`);
}

/**
 * The `onSkip` the list, the usage report and search are given: each file
 * skipped noted as `skipped "<path>": <reason>`.
 *
 * @param io Where the notes go.
 * @returns The callback.
 */
export function noteSkipped(
  io: Pick<CliIo, "stderr">,
): (path: string, reason: string) => void {
  return (path, reason) => printNote(io, `skipped "${path}": ${reason}`);
}

/**
 * Print `value` as indented JSON (a `Map` prints as an object), for `--json`.
 *
 * @param io Where it goes.
 * @param value The value.
 */
export function writeJson(io: Pick<CliIo, "stdout">, value: unknown): void {
  io.stdout(`${JSON.stringify(value, _mapsAsObjects, 2)}\n`);
}

function _mapsAsObjects(_key: string, value: unknown): unknown {
  return value instanceof Map ? Object.fromEntries(value) : value;
}
