/**
 * The one helper every CLI command is declared with. A command says once
 * what it takes (its name, a summary, what it does, its options each with
 * a one-line description, its positional arguments); the helper parses the
 * arguments from that, answers `--help` from it ({@linkcode commandHelp}),
 * words usage errors, and turns what the command returns or throws into an
 * exit code: 0 success, 1 the work failed, 2 bad usage. Work that fails is
 * worded `Cannot <action> "<file>": <state>` ({@linkcode failure}).
 *
 * @module
 */

import { errorCode } from "../_fs.ts";
import { sanitize, sanitizeLines } from "./_format.ts";
import {
  type CommandHelp,
  commandHelp,
  type FlagSpec,
  programUsage,
  usageLine,
} from "./_help.ts";
import { type CliIo, DEFAULT_PROGRAM, OutputClosed } from "./_io.ts";
import { CliUsageError, parseArgs, type ParsedArgs } from "./_args.ts";

export { CliUsageError, parseArgs } from "./_args.ts";
export type { ParsedArgs } from "./_args.ts";
export type { CommandHelp, FlagSpec } from "./_help.ts";

/**
 * `--data-dir`, as the commands that read every data dir there is declare
 * it (list, index, search, usage): repeatable, each one must exist.
 */
export const DATA_DIR_FLAG: FlagSpec = {
  value: "D",
  repeat: true,
  help:
    `only this data dir (repeatable; each must exist). Default: every one there is among xdev's ($XDEV_DATA_DIR, else "dataDir" in ~/.xdev/config.jsonc, else ~/.xdev/agent), omp's (~/.omp/agent) and pi's (~/.pi/agent)`,
};

/** A command as declared: what it takes, and its work. */
export interface CommandSpec<F extends string> extends CommandHelp {
  /** The options by name, without `--`; `--help` is always known. */
  readonly flags: Readonly<Record<F, FlagSpec>>;
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
  /**
   * Every value an option declared with `repeat` was given, in order
   * (`--data-dir A --data-dir B`); for another option, the one that counts
   * (the last), or none.
   */
  values(flag: F): readonly string[];
  /** Whether an option was given. */
  has(flag: F): boolean;
  /** A usage error in this command's name, `<name>: <message>`, to throw. */
  usageError(message: string): CliUsageError;
}

/** A declared command, ready to run. */
export interface Command {
  /** The word after the program's name. */
  readonly name: string;
  /**
   * What the command declares, for the program's usage and the usage line
   * a usage error repeats (a lazy command's module is loaded for it).
   *
   * @returns The declaration, without the work.
   */
  help(): Promise<CommandHelp>;
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
 * A command whose module is loaded only when it runs (or its help is
 * asked for): a process that runs one command loads that command's
 * modules alone.
 *
 * @param name The word after the program's name, as the loaded command names itself.
 * @param load What loads the command's module (it exports `command`).
 * @returns The command.
 */
export function lazyCommand(
  name: string,
  load: () => Promise<{ command: Command }>,
): Command {
  const loaded = async (): Promise<Command> => {
    const { command } = await load();
    if (command.name !== name) {
      throw new Error(`the command "${name}" loaded "${command.name}"`);
    }
    return command;
  };
  return {
    name,
    help: async () => await (await loaded()).help(),
    run: async (args, io) => await (await loaded()).run(args, io),
  };
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
  const kinds = Object.entries<FlagSpec>(spec.flags);
  const takesValue: Record<string, boolean> = { help: false };
  const shorts: Record<string, string> = {};
  for (const [flag, kind] of kinds) {
    takesValue[flag] = kind.value !== undefined;
    if (kind.short !== undefined) shorts[kind.short] = flag;
  }
  return {
    name: spec.name,
    help: () => Promise.resolve(spec),
    run: async (args, io) => {
      const parsed = _parse(spec.name, args, takesValue, shorts);
      if (parsed.flags.has("help")) {
        io.stdout(commandHelp(io.program ?? DEFAULT_PROGRAM, spec));
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
        if (kind.required === true && !parsed.flags.has(flag)) {
          throw new CliUsageError(`${name}: missing --${flag}`);
        }
      }
      return await spec.run(
        _call(name, subcommand, rest, parsed, spec.flags),
        io,
      );
    },
  };
}

/** {@linkcode parseArgs}, its errors in the command's name: `tail: unknown option "--x"`. */
function _parse(
  name: string,
  args: readonly string[],
  takesValue: Readonly<Record<string, boolean>>,
  shorts: Readonly<Record<string, string>>,
): ParsedArgs {
  try {
    return parseArgs(args, takesValue, shorts);
  } catch (err) {
    if (!(err instanceof CliUsageError)) throw err;
    throw new CliUsageError(`${name}: ${err.message}`);
  }
}

function _call<F extends string>(
  name: string,
  subcommand: string | undefined,
  args: readonly string[],
  parsed: ParsedArgs,
  flags: Readonly<Record<F, FlagSpec>>,
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
    values: (flag) => {
      const all = parsed.repeated.get(flag) ?? [];
      return flags[flag].repeat === true ? all : all.slice(-1);
    },
    has: (flag) => parsed.flags.has(flag),
    usageError: (message) => new CliUsageError(`${name}: ${message}`),
  };
}

/** The program: its version, its commands, and the notes under its usage. */
export interface CliSpec {
  /** What `--version` prints: `@xdev/session 0.4.0`. */
  version: string;
  /** The commands, in the order the usage lists them. */
  commands: readonly Command[];
  /** What the usage says after the commands (defaults, where to read more). */
  notes: string;
}

/**
 * Run the command `args` names and settle the exit code: what the command
 * returns; 1 when it throws (the message on standard error as
 * `error: <message>`); 2 for a usage error: the message on one line, the
 * command's usage line and where its help is (never the whole usage);
 * 0, silently, when standard output's reader has gone ({@linkcode OutputClosed}).
 * Without a command, the program's usage is printed and the exit code is 2;
 * with `help`, `--help` or `-h` it is 0; `--version` (`-V`, `version`)
 * prints the version. Messages are printed as {@linkcode sanitize} makes
 * them: a path named in one cannot drive the terminal. The program's usage
 * loads every command's declaration; nothing else does.
 *
 * @param cli The version, the commands and the usage's notes.
 * @param args The arguments after the program name.
 * @param io Where output goes.
 * @returns The exit code.
 */
export async function runCli(
  cli: CliSpec,
  args: readonly string[],
  io: CliIo,
): Promise<number> {
  const program = io.program ?? DEFAULT_PROGRAM;
  const [name, ...rest] = args;
  let command: Command | undefined;
  try {
    if (name === undefined || ["help", "--help", "-h"].includes(name)) {
      const helps = await Promise.all(cli.commands.map((c) => c.help()));
      io.stdout(`${programUsage(program, helps, cli.notes)}\n`);
      return name === undefined ? 2 : 0;
    }
    if (["--version", "-V", "version"].includes(name)) {
      io.stdout(`${cli.version}\n`);
      return 0;
    }
    command = cli.commands.find((c) => c.name === name);
    if (command === undefined) {
      throw new CliUsageError(`unknown command "${name}"`);
    }
    return await command.run(rest, io);
  } catch (err) {
    if (err instanceof OutputClosed) return 0; // `cli list | head`: done
    if (err instanceof CliUsageError) {
      io.stderr(`error: ${sanitize(err.message)}\n`);
      io.stderr(await _usageHint(program, command));
      return 2;
    }
    printError(io, err instanceof Error ? err.message : String(err));
    return 1;
  }
}

/** After a usage error: the command's usage line and where its help is. */
async function _usageHint(
  program: string,
  command: Command | undefined,
): Promise<string> {
  if (command === undefined) {
    return sanitize(`Run "${program} --help" for the commands.`) + "\n";
  }
  const line = usageLine(program, await command.help(), 7);
  return `${sanitizeLines(`Usage: ${line}`)}\n${
    sanitize(`Run "${program} ${command.name} --help" for its options.`)
  }\n`;
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
