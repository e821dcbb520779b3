/**
 * Shared by the CLI tests (no tests of its own): run the CLI as a
 * subprocess or in process, and build a data dir from the omp fixtures.
 */
import { join } from "node:path";
import { main } from "../cli.ts";
import type { CliIo } from "../src/cli/_io.ts";

const CLI = new URL("../cli.ts", import.meta.url).pathname;
/** The omp-written sample sessions and their blobs. */
export const FIXTURES = new URL("../fixtures/omp/", import.meta.url);

/** What a CLI run printed and returned. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Run the CLI as a subprocess (stdout and stderr are pipes, not terminals).
 *
 * @param args The arguments.
 * @param env Extra environment variables.
 */
export async function cli(
  args: string[],
  env: Record<string, string> = {},
): Promise<CliRun> {
  // Another HOME would move Deno's cache: keep this one.
  const cache = "HOME" in env ? { DENO_DIR: await denoDir() } : {};
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", "--allow-write", "--allow-env", CLI, ...args],
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1", ...cache, ...env },
  }).output();
  const dec = new TextDecoder();
  return {
    code: out.code,
    stdout: dec.decode(out.stdout),
    stderr: dec.decode(out.stderr),
  };
}

let _denoDir: Promise<string> | undefined;

/** Deno's cache folder, as `deno info` reports it. */
function denoDir(): Promise<string> {
  _denoDir ??= new Deno.Command(Deno.execPath(), {
    args: ["info", "--json"],
    stdout: "piped",
  }).output().then((o) =>
    JSON.parse(new TextDecoder().decode(o.stdout)).denoDir
  );
  return _denoDir;
}

/**
 * Run the CLI in this process with a fake terminal.
 *
 * @param args The arguments.
 * @param io Terminal width, whether stderr is a terminal.
 */
export async function cliInProcess(
  args: string[],
  io: Partial<Pick<CliIo, "columns" | "isTerminal" | "stderrIsTerminal">> = {},
): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  const code = await main(args, {
    stdout: (s) => void (stdout += s),
    stderr: (s) => void (stderr += s),
    isTerminal: io.isTerminal ?? false,
    columns: io.columns ?? Number.POSITIVE_INFINITY,
    stderrIsTerminal: io.stderrIsTerminal ?? false,
  });
  return { code, stdout, stderr };
}

/** A temp data dir holding the omp fixtures; removed on dispose. */
export interface TestDataDir extends AsyncDisposable {
  /** The data dir. */
  root: string;
  /** `<root>/sessions/-src-lumen-api`, holding the 14 fixture sessions. */
  sessions: string;
  /** `<root>/blobs`, omp's 4 blobs and their `.png` twins. */
  blobs: string;
  /** A fixture session in the data dir. */
  session(name: string): string;
}

/**
 * Copy `fixtures/omp/*.jsonl` to `<tmp>/sessions/-src-lumen-api/` and
 * `fixtures/omp/blobs` to `<tmp>/blobs`.
 */
export async function makeDataDir(): Promise<TestDataDir> {
  const root = await Deno.makeTempDir({ prefix: "xdev-cli-test-" });
  const sessions = join(root, "sessions", "-src-lumen-api");
  const blobs = join(root, "blobs");
  await Deno.mkdir(sessions, { recursive: true });
  await Deno.mkdir(blobs);
  for await (const e of Deno.readDir(FIXTURES)) {
    if (e.isFile && e.name.endsWith(".jsonl")) {
      await Deno.copyFile(new URL(e.name, FIXTURES), join(sessions, e.name));
    }
  }
  for await (const e of Deno.readDir(new URL("blobs/", FIXTURES))) {
    await Deno.copyFile(
      new URL(`blobs/${e.name}`, FIXTURES),
      join(blobs, e.name),
    );
  }
  return {
    root,
    sessions,
    blobs,
    session: (name) => join(sessions, name),
    [Symbol.asyncDispose]: () => Deno.remove(root, { recursive: true }),
  };
}

/** The 14 fixture session files. */
export const FIXTURE_SESSIONS = 14;

/**
 * Run several argument lists: the first as a subprocess (the process's real
 * exit code), the rest in process (fast).
 *
 * @param cases The argument lists.
 */
export async function cliCases(cases: string[][]): Promise<CliRun[]> {
  const runs: CliRun[] = [];
  for (const [i, args] of cases.entries()) {
    runs.push(i === 0 ? await cli(args) : await cliInProcess(args));
  }
  return runs;
}

/**
 * Terminal escapes a hostile session holds: an OSC 52 clipboard write, a
 * screen clear, a bare carriage return and a C1 CSI (U+009B).
 */
export const HOSTILE = "\x1b]52;c;aGFjaw==\x07\x1b[2J\r\u009b31m";

/** Any control character but the line feed: none may reach a terminal. */
// deno-lint-ignore no-control-regex
export const CONTROL = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029]/;

/**
 * Write a session whose title, cwd, model, user text, assistant text,
 * provider, tool name and tool output all hold {@linkcode HOSTILE}.
 *
 * @param path Where to write it.
 */
export async function writeHostileSession(path: string): Promise<void> {
  const t0 = "2026-10-01T09:00:00.000Z";
  const base = {
    type: "title",
    v: 1,
    title: `T ${HOSTILE}`,
    source: "user",
    updatedAt: t0,
    pad: "",
  };
  const width = new TextEncoder().encode(JSON.stringify(base)).length;
  const slot = JSON.stringify({ ...base, pad: " ".repeat(255 - width) });
  const at = { timestamp: t0 };
  const lines = [
    slot,
    {
      type: "session",
      version: 3,
      id: "01a0f000-0000-7000-8000-00000000aaaa",
      ...at,
      cwd: `/home/${HOSTILE}/app`,
    },
    {
      type: "model_change",
      id: "00000001",
      parentId: null,
      ...at,
      model: `anthropic/m${HOSTILE}`,
    },
    {
      type: "message",
      id: "00000002",
      parentId: "00000001",
      ...at,
      message: {
        role: "user",
        content: [{ type: "text", text: `hi ${HOSTILE} there` }],
      },
    },
    {
      type: "message",
      id: "00000003",
      parentId: "00000002",
      ...at,
      message: {
        role: "assistant",
        content: [
          { type: "text", text: `ok ${HOSTILE}` },
          { type: "toolCall", id: "c1", name: `read${HOSTILE}`, arguments: {} },
        ],
        api: "anthropic-messages",
        provider: `p${HOSTILE}`,
        model: `m${HOSTILE}`,
        usage: { input: 1, output: 1, totalTokens: 2 },
        stopReason: "toolUse",
      },
    },
    {
      type: "message",
      id: "00000004",
      parentId: "00000003",
      ...at,
      message: {
        role: "toolResult",
        toolCallId: "c1",
        toolName: `read${HOSTILE}`,
        content: [{ type: "text", text: `out ${HOSTILE}` }],
        isError: false,
      },
    },
  ];
  await Deno.writeTextFile(
    path,
    lines.map((l) => typeof l === "string" ? l : JSON.stringify(l)).join("\n") +
      "\n",
  );
}

/**
 * Write a session whose entry types and message roles are names that
 * `Object.prototype` holds: `constructor`, `__proto__`, `toString`.
 * Entries: constructor 1, __proto__ 1, message 3; roles: toString,
 * __proto__, constructor, one each.
 *
 * @param path Where to write it.
 */
export async function writePrototypeNamesSession(path: string): Promise<void> {
  const at = { timestamp: "2026-10-01T09:00:00.000Z" };
  const message = (id: string, parentId: string, role: string) => ({
    type: "message",
    id,
    parentId,
    ...at,
    message: { role, content: [{ type: "text", text: role }] },
  });
  const lines = [
    {
      type: "session",
      version: 3,
      id: "01a0f000-0000-7000-8000-00000000bbbb",
      ...at,
      cwd: "/home/dev/app",
    },
    { type: "constructor", id: "00000001", parentId: null, ...at },
    { type: "__proto__", id: "00000002", parentId: "00000001", ...at },
    message("00000003", "00000002", "toString"),
    message("00000004", "00000003", "__proto__"),
    message("00000005", "00000004", "constructor"),
  ];
  await Deno.writeTextFile(
    path,
    lines.map((l) => JSON.stringify(l)).join("\n") + "\n",
  );
}
