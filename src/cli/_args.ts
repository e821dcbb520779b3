/**
 * The CLI's argument parser: long options (`--to DST`, `--to=DST`), the
 * one-letter spellings a command declares (`-n 5`, `-n5`, `-fn 5`), `--`,
 * and the positional arguments. Commands never call it: `defineCommand`
 * parses with it from their declared options.
 *
 * @module
 */

/** A usage error: exit code 2, and the command's usage line printed after it. */
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
  /** Every value of each option that takes one, in the order given. */
  repeated: Map<string, string[]>;
}

/**
 * Parse `args` against the options a command knows. An argument that starts
 * with `--` is an option (its value follows it, or `=` inside it); `--`
 * makes every later argument positional. A `-` and a letter `shorts` names
 * is that option (`-n 5`, `-n5`; switches bundled: `-fn 5`); anything else
 * is positional (`-`, `-5`).
 *
 * @param args The command's arguments.
 * @param spec Option name → whether it takes a value.
 * @param shorts Letter → option name, for the one-letter spellings.
 * @returns The parsed arguments.
 * @throws {CliUsageError} For an unknown option or a missing value.
 */
export function parseArgs(
  args: readonly string[],
  spec: Readonly<Record<string, boolean>>,
  shorts: Readonly<Record<string, string>> = {},
): ParsedArgs {
  const positional: string[] = [];
  const flags = new Map<string, string | true>();
  const repeated = new Map<string, string[]>();
  const set = (name: string, value: string | true) => {
    flags.set(name, value);
    if (value !== true) {
      repeated.set(name, [...repeated.get(name) ?? [], value]);
    }
  };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--") {
      positional.push(...args.slice(i + 1));
      break;
    }
    if (/^-[^-]/.test(a) && Object.hasOwn(shorts, a[1]!)) {
      i = _shorts(args, i, spec, shorts, set);
      continue;
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
      set(name, true);
      continue;
    }
    const value = eq > 0 ? a.slice(eq + 1) : args[++i];
    if (value === undefined) {
      throw new CliUsageError(`option "--${name}" needs a value`);
    }
    set(name, value);
  }
  return { positional, flags, repeated };
}

/** `-fn5` at `args[i]`: its letters' options; returns the last index used. */
function _shorts(
  args: readonly string[],
  i: number,
  spec: Readonly<Record<string, boolean>>,
  shorts: Readonly<Record<string, string>>,
  set: (name: string, value: string | true) => void,
): number {
  const a = args[i]!;
  for (let j = 1; j < a.length; j++) {
    const name = Object.hasOwn(shorts, a[j]!) ? shorts[a[j]!] : undefined;
    if (name === undefined) {
      throw new CliUsageError(`unknown option "-${a[j]}" in "${a}"`);
    }
    if (!spec[name]) {
      set(name, true);
      continue;
    }
    const value = j + 1 < a.length ? a.slice(j + 1) : args[++i];
    if (value === undefined) {
      throw new CliUsageError(`option "-${a[j]}" needs a value`);
    }
    set(name, value);
    break;
  }
  return i;
}
