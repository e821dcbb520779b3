/**
 * `cli demo`: write a realistic set of sessions through the public API, as
 * an agent would write them, list them, print one context. Needs nothing
 * but a writable temp dir.
 *
 * @module
 */

import { toBase64, toHex } from "../format/_encoding.ts";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fs, isNotFound } from "../_fs.ts";
import type { ContentBlock } from "../format/messages.ts";
import { Session } from "../session/session.ts";
import { forkSession } from "../store/fork.ts";
import { listSessions } from "../store/list.ts";
import { attempt, type Command, defineCommand, failure } from "./_command.ts";
import { openSession, renderMessage } from "./_context.ts";
import { formatBytes, sanitize } from "./_format.ts";
import { type CliIo, DEFAULT_PROGRAM } from "./_io.ts";
import { formatTable } from "./_table.ts";
import { userPathOf } from "./_user_path.ts";

const ABOUT =
  `Write a realistic set of sessions through the library's public API: a main
session with every entry type, a rename, a branch back with a summary and an
image blob; a fork of it; a subagent child in its artifacts folder; a short
session with a reset. Then list them and print the main session's context.
Without --data-dir a fresh temporary data dir is used (and named).
`;

/** What the demo wrote. */
export interface DemoResult {
  /** The data dir. */
  dataDir: string;
  /** The files written: main, fork, subagent, reset. */
  files: { main: string; fork: string; subagent: string; reset: string };
}

const _T0 = Date.parse("2026-11-30T09:00:00.000Z");

/** `cli demo`. */
export const command: Command = defineCommand({
  name: "demo",
  summary:
    "Write sample sessions through the API, then list and read them back.",
  about: ABOUT,
  flags: {
    "data-dir": {
      value: "D",
      help:
        "write into this data dir, which must exist (default: a fresh temporary one)",
    },
  },
  run: async (call, io) => {
    const given = userPathOf(call.value("data-dir"));
    if (given !== undefined) await checkFolder(given, "open the data dir");
    const dataDir = given ?? await _freshTempDir();
    io.stdout(
      `Writing demo sessions to ${dataDir}${
        given === undefined ? " (a fresh temporary data dir)" : ""
      }\n\n`,
    );
    const { files } = await attempt(
      `write the demo sessions to "${dataDir}"`,
      () => writeDemo(dataDir),
    );
    await _list(dataDir, io);
    const main = await openSession(files.main);
    try {
      const ctx = main.buildContext();
      io.stdout(
        `\n${
          sanitize(
            `Context of "${main.title}": ${ctx.messages.length} messages, model ${ctx.model}, thinking ${ctx.thinkingLevel}, ~${ctx.tokens} tokens`,
          )
        }\n`,
      );
      for (const m of ctx.messages) io.stdout(`\n${renderMessage(m)}\n`);
      const program = io.program ?? DEFAULT_PROGRAM;
      io.stdout(`\nNext: ${program} context ${files.main} --json\n`);
      return 0;
    } finally {
      await main[Symbol.asyncDispose]();
    }
  },
});

/** The sessions as `listSessions` finds them, in a table. */
async function _list(dataDir: string, io: CliIo): Promise<void> {
  const sessions = await listSessions(dataDir);
  io.stdout(
    `listSessions() finds ${sessions.length} sessions (the subagent child is not listed):\n`,
  );
  const rows = sessions.map((s) => [
    s.id.slice(0, 13),
    s.title ?? "(untitled)",
    s.parentSession?.slice(0, 13) ?? "-",
    formatBytes(s.size),
  ]);
  const columns = [
    { header: "id" },
    { header: "title", shrink: "end" as const },
    { header: "parent", optional: true },
    { header: "size", right: true },
  ];
  io.stdout(`${formatTable(columns, rows, io.columns)}\n`);
}

/** A new folder in the system's temp folder, `xdev-demo-<random hex>`. */
async function _freshTempDir(): Promise<string> {
  const dir = join(
    tmpdir(),
    `xdev-demo-${toHex(crypto.getRandomValues(new Uint8Array(8)))}`,
  );
  await fs().mkdir(dir, 0o700);
  return dir;
}

/**
 * Check that `dir` is a folder, or absent (to be made), before writing there.
 *
 * @param dir The folder.
 * @param action What is done there, after `Cannot`: `open the data dir`.
 * @throws {Error} `Cannot <action> "<dir>": not a folder` for a file.
 */
export async function checkFolder(dir: string, action: string): Promise<void> {
  let kind: string;
  try {
    kind = (await fs().stat(dir)).kind;
  } catch (err) {
    if (isNotFound(err)) return;
    throw failure(`${action} "${dir}"`, err);
  }
  if (kind !== "directory") {
    throw new Error(`Cannot ${action} "${dir}": not a folder`);
  }
}

/**
 * Write the demo sessions into `dataDir` through the public API.
 *
 * @param dataDir The data dir (sessions and blobs go under it).
 * @returns The files written.
 */
export async function writeDemo(dataDir: string): Promise<DemoResult> {
  let tick = 0;
  const now = (): Date => new Date(_T0 + 7_000 * tick++);
  const main = await writeMainSession(dataDir, now);
  const subagent = await writeSubagentSession(dataDir, main, now);
  const fork = await forkSession(main, undefined, {
    label: "CRLF fix, second try",
  });
  const reset = await writeResetSession(dataDir, now);
  return { dataDir, files: { main, fork: fork.path, subagent, reset } };
}

/** The folder every demo session was started in. */
const _CWD = "/home/dev/src/lumen-api";

/**
 * The main session: every entry type, a rename, a branch back with a
 * summary, a compaction, an image that goes to the blob store.
 *
 * @param dataDir The data dir.
 * @param now The clock every entry is stamped with.
 * @returns The session's file.
 */
export async function writeMainSession(
  dataDir: string,
  now: () => Date,
): Promise<string> {
  const main = await Session.create({ cwd: _CWD, dataDir, now });
  main.enableAutoPersist();
  const { ask, answer } = await _firstQuestion(main);
  await main.setTitle("CRLF in loadBlobs", "auto");
  await main.appendModelUsage({
    purpose: "title",
    api: "anthropic-messages",
    provider: "anthropic",
    model: "claude-haiku-4-5",
    usage: _usage(300, 12),
    stopReason: "stop",
  });
  await main.appendCustom("todo-state", { open: ["handle \\r\\n"], done: [] });
  await main.appendCustomMessage(
    "hook-note",
    "Reminder from a hook: keep commits small.",
    { display: true },
  );
  await main.appendModeChange("plan");
  await main.appendTtsrInjection(["no-console-log"]);
  await _turn(
    main,
    "Try a regex that handles both.",
    "A regex works but is slow on 1 GB files.",
  );
  // Branch back to the answer, with a summary of the abandoned approach.
  await main.appendBranchSummary(
    answer.id,
    "Abandoned: a regex split; too slow on big files.",
  );
  await main.appendModeChange("none");
  await main.appendModelChange("openai/gpt-5.1-codex");
  await main.appendThinkingLevelChange("high");
  await _turn(
    main,
    "Split on \\n and strip a trailing \\r instead.",
    "Done: lines now lose a trailing \\r; tests cover CRLF. 🎉",
    "gpt-5.1-codex",
  );
  await main.appendCompaction({
    summary:
      "## Summary\nCRLF files broke loadBlobs; fixed by stripping a trailing \\r after splitting on \\n.",
    shortSummary: "CRLF fix in loadBlobs",
    firstKeptEntryId: ask.id,
    tokensBefore: 48_210,
  });
  await main.appendCredentialPin("openai", "sha256:demo");
  await _turn(
    main,
    "Write the changelog line.",
    "Fix: loadBlobs reads CRLF files.",
    "gpt-5.1-codex",
  );
  await main.setTitle("Fix CRLF handling in loadBlobs 🛠️");
  await main.close();
  return main.path!;
}

/**
 * The main session's settings and first question: an image attached, a
 * label, a tool call and its result, then the answer.
 */
async function _firstQuestion(
  main: Session,
): Promise<{ ask: { id: string }; answer: { id: string } }> {
  await main.appendModelChange("anthropic/claude-sonnet-4-5");
  await main.appendModelChange("anthropic/claude-haiku-4-5", "smol");
  await main.appendThinkingLevelChange("medium");
  await main.appendServiceTierChange(null);
  const ask = await main.appendMessage({
    role: "user",
    content: [
      {
        type: "text",
        text:
          "Why does `loadBlobs` fail on CRLF files? Screenshot attached. 为什么？",
      },
      { type: "image", mimeType: "image/png", data: toBase64(_demoImage()) },
    ],
  });
  await main.appendLabel(ask.id, "start ✨");
  await main.appendMessage(_assistant([
    {
      type: "thinking",
      thinking: "Check how lines are split.",
      thinkingSignature: "c2lnbmVk",
    },
    {
      type: "toolCall",
      id: "call_read_1",
      name: "read",
      arguments: { path: "src/blobs.ts" },
    },
  ], "toolUse"));
  await main.appendMessage({
    role: "toolResult",
    toolCallId: "call_read_1",
    toolName: "read",
    content: [{
      type: "text",
      text:
        'export function loadBlobs(text: string) {\n  return text.split("\\n");\n}\n',
    }],
    isError: false,
  });
  const answer = await main.appendMessage(
    _assistant([{
      type: "text",
      text: "It splits on \\n only, leaving a \\r on every line. ✓",
    }]),
  );
  return { ask, answer };
}

/**
 * A subagent child, inside its parent's artifacts folder. It is marked by its
 * place and its `session_init` entry, as omp marks its own: a slot source
 * `subagent` would make omp 18.3.4 refuse the file.
 *
 * @param dataDir The data dir.
 * @param parent The parent session's file.
 * @param now The clock.
 * @returns The child's file.
 */
export async function writeSubagentSession(
  dataDir: string,
  parent: string,
  now: () => Date,
): Promise<string> {
  const artifacts = parent.slice(0, -".jsonl".length);
  const child = await Session.create({
    cwd: _CWD,
    dataDir,
    path: join(artifacts, "1-Scout.jsonl"),
    parentSession: parent,
    now,
  });
  await child.appendModelChange("anthropic/claude-haiku-4-5");
  await child.appendSessionInit({
    systemPrompt: "You are a scout.",
    task: "Find CRLF tests",
    tools: ["grep", "read"],
  });
  await _turn(
    child,
    "Find tests that mention CRLF.",
    "test/blobs.test.ts covers it.",
    "claude-haiku-4-5",
  );
  await child.ensureOnDisk();
  await child.close();
  return child.path!;
}

/**
 * A short session with a reset.
 *
 * @param dataDir The data dir.
 * @param now The clock.
 * @returns The session's file.
 */
export async function writeResetSession(
  dataDir: string,
  now: () => Date,
): Promise<string> {
  const other = await Session.create({ cwd: _CWD, dataDir, now });
  await other.appendModelChange("anthropic/claude-sonnet-4-5");
  await _turn(other, "What is 2 + 2?", "4");
  await other.appendResetBoundary();
  await _turn(
    other,
    "New topic: list the TODOs.",
    "There are two TODOs in src/cli.ts.",
  );
  await other.ensureOnDisk();
  await other.setTitle("Quick questions");
  await other.close();
  return other.path!;
}

/** A user's question and the assistant's text answer. */
async function _turn(
  session: Session,
  question: string,
  answer: string,
  model?: string,
): Promise<void> {
  await session.appendMessage({
    role: "user",
    content: [{ type: "text", text: question }],
  });
  await session.appendMessage(
    _assistant([{ type: "text", text: answer }], "stop", model),
  );
}

/** A usage record of `input` and `output` tokens. */
function _usage(input: number, output: number) {
  return {
    input,
    output,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: input + output,
  };
}

/** An assistant message; the provider follows from the model's name. */
function _assistant(
  content: ContentBlock[],
  stopReason = "stop",
  model = "claude-sonnet-4-5",
) {
  return {
    role: "assistant" as const,
    content,
    api: model.startsWith("gpt") ? "openai-responses" : "anthropic-messages",
    provider: model.startsWith("gpt") ? "openai" : "anthropic",
    model,
    usage: _usage(1200, 180),
    stopReason,
  };
}

/** A small PNG-looking image (signature and pseudo-random bytes): over 1024 base64 characters, so it goes to the blob store. */
function _demoImage(): Uint8Array {
  const bytes = new Uint8Array(1536);
  bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  let x = 2463534242;
  for (let i = 8; i < bytes.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    bytes[i] = x & 0xff;
  }
  return bytes;
}
