/**
 * The CLI's help, generated from the commands' declarations: a command's
 * `--help` (its usage line, what it does, one line per option), the usage
 * line a usage error repeats, and the program's own usage listing every
 * command. Nothing here is written by hand twice: an option added to a
 * command's declaration is parsed, and shown in all three.
 *
 * @module
 */

/** An option as a command declares it. */
export interface FlagSpec {
  /**
   * The name of the option's value in the usage (`D` for `--data-dir D`);
   * an option without one is a switch (`--json`).
   */
  readonly value?: string;
  /** Whether the command cannot run without it. Default false. */
  readonly required?: boolean;
  /**
   * A one-letter spelling: `n` lets `-n 5` (and `-n5`) stand for
   * `--lines 5`; switches may be bundled (`-fn 5`).
   */
  readonly short?: string;
  /**
   * Whether it may be given more than once (`--data-dir A --data-dir B`),
   * each value kept: the usage shows `[--data-dir D]...`, and the command
   * reads them with `Call.values`. Default false: given twice, the last wins.
   */
  readonly repeat?: boolean;
  /** What it does, in one sentence; `--help` wraps it. */
  readonly help: string;
}

/** What a command's help is made of: its declaration, without its work. */
export interface CommandHelp {
  /** The word after the program's name: `show`. */
  readonly name: string;
  /** What it does, in one line, for the program's usage. */
  readonly summary: string;
  /** What `--help` says between the usage line and the options. */
  readonly about: string;
  /** The options by name, without `--`. */
  readonly flags: Readonly<Record<string, FlagSpec>>;
  /** The positional arguments, named as in the usage: `<file>`. */
  readonly args?: readonly string[];
  /** The words the first positional argument must be one of. */
  readonly subcommands?: readonly string[];
}

/**
 * The widest line of help, whatever the terminal's width: it reads the same
 * everywhere, and fits 80 columns without touching the last one.
 */
export const HELP_COLUMNS = 79;

/** The deepest a usage line is continued at: a long head does not squeeze its options. */
const _MAX_HANG = 24;

/** Help's own option, known to every command. */
const _HELP_FLAG: FlagSpec = { help: "print this help" };

/**
 * A command's usage line, wrapped, without `Usage: `:
 * `xdev-session show <file> [--data-dir D] [--full] [--json]`.
 *
 * @param program The program's name.
 * @param command The command.
 * @param indent The width of what comes before it on its first line.
 * @returns The line (or lines, continued under the first argument).
 */
export function usageLine(
  program: string,
  command: CommandHelp,
  indent = 0,
): string {
  let head = program === "" ? command.name : `${program} ${command.name}`;
  if (command.subcommands !== undefined) {
    head += ` ${command.subcommands.join("|")}`;
  }
  const words = [...command.args ?? []];
  for (const [name, flag] of Object.entries(command.flags)) {
    const spelled = flag.short === undefined ? `--${name}` : `-${flag.short}`;
    const word = flag.value === undefined
      ? spelled
      : `${spelled} ${flag.value}`;
    const once = flag.required ? word : `[${word}]`;
    words.push(flag.repeat ? `${once}...` : once);
  }
  const hang = Math.min(indent + head.length + 1, _MAX_HANG);
  return _fill(head, words, hang, indent);
}

/**
 * A command's `--help`: its usage line, what it does, and its options.
 *
 * @param program The program's name.
 * @param command The command.
 * @returns The text, ending with a line feed.
 */
export function commandHelp(program: string, command: CommandHelp): string {
  const rows = Object.entries(command.flags).map(([name, flag]) => {
    const long = flag.value === undefined
      ? `--${name}`
      : `--${name} ${flag.value}`;
    const short = flag.short === undefined
      ? ""
      : flag.value === undefined
      ? `-${flag.short}, `
      : `-${flag.short} ${flag.value}, `;
    return [`${short}${long}`, flag.help] as const;
  });
  rows.push(["--help", _HELP_FLAG.help]);
  const width = Math.min(18, Math.max(...rows.map(([label]) => label.length)));
  const options = rows.map(([label, help]) => {
    const text = _wrap(help, HELP_COLUMNS - width - 4);
    const pad = " ".repeat(width + 4);
    const first = label.length > width
      ? `  ${label}\n${pad}${text[0]}`
      : `  ${label.padEnd(width)}  ${text[0]}`;
    return [first, ...text.slice(1).map((l) => pad + l)].join("\n");
  });
  const about = command.about.trim();
  return `Usage: ${usageLine(program, command, 7)}\n\n${about}${
    about === "" ? "" : "\n\n"
  }Options:\n${options.join("\n")}\n`;
}

/**
 * The program's usage: every command's usage line and summary, `notes`,
 * then where to read more.
 *
 * @param program The program's name.
 * @param commands The commands, in the order shown.
 * @param notes What follows the list (defaults, where to read more).
 * @returns The text, without a final line feed.
 */
export function programUsage(
  program: string,
  commands: readonly CommandHelp[],
  notes: string,
): string {
  const list = commands.map((c) =>
    `  ${usageLine("", c, 2)}\n      ${c.summary}`
  );
  return `Usage: ${program} <command> [options]\n\nCommands:\n${
    list.join("\n")
  }\n\n${notes.trim()}\n\nRun "${program} <command> --help" for a command's options,\n"${program} --version" for the version.`;
}

/** `head` then `words`, a line at most {@linkcode HELP_COLUMNS} wide, then continued at `hang`. */
function _fill(
  head: string,
  words: readonly string[],
  hang: number,
  indent: number,
): string {
  const lines = [head];
  let width = indent + head.length;
  for (const word of words) {
    if (width + 1 + word.length > HELP_COLUMNS && width > hang) {
      lines.push(" ".repeat(hang) + word);
      width = hang + word.length;
    } else {
      lines[lines.length - 1] += ` ${word}`;
      width += 1 + word.length;
    }
  }
  return lines.join("\n");
}

/** `text` in lines of at most `width` columns, broken between words. */
function _wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter((w) => w !== "")) {
    if (line !== "" && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  return [...lines, line];
}
