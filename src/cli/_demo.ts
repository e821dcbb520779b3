/**
 * `cli demo`: write a realistic set of sessions through the public API, list
 * them, print one context. Needs nothing but a writable temp dir.
 *
 * @module
 */

import { dirname, join } from "node:path";
import {
  type ContentBlock,
  forkSession,
  listSessions,
  Session,
} from "../../mod.ts";
import { defineCommand } from "./_command.ts";
import { renderMessage } from "./_context.ts";
import { formatBytes } from "./_format.ts";
import { formatTable } from "./_table.ts";

const HELP = `Usage: cli demo [--data-dir D]

Write a realistic set of sessions through the library's public API: a main
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

const _CWD = "/home/dev/src/lumen-api";
const _T0 = Date.parse("2026-11-30T09:00:00.000Z");

/** `cli demo`. */
export const demo = defineCommand({
  name: "demo",
  help: HELP,
  flags: { "data-dir": "value" },
  run: async (call, io) => {
    const given = call.value("data-dir");
    const dataDir = given ?? await Deno.makeTempDir({ prefix: "xdev-demo-" });
    io.stdout(
      `Writing demo sessions to ${dataDir}${
        given === undefined ? " (a fresh temporary data dir)" : ""
      }\n\n`,
    );
    const { files } = await writeDemo(dataDir);

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

    await using main = await Session.open(files.main);
    const ctx = main.buildContext();
    io.stdout(
      `\nContext of "${main.title}": ${ctx.messages.length} messages, model ${ctx.model}, thinking ${ctx.thinkingLevel}, ~${ctx.tokens} tokens\n`,
    );
    for (const m of ctx.messages) io.stdout(`\n${renderMessage(m)}\n`);
    io.stdout(`\nNext: deno task cli context ${files.main} --json\n`);
    return 0;
  },
});

/**
 * Write the demo sessions into `dataDir` through the public API.
 *
 * @param dataDir The data dir (sessions and blobs go under it).
 * @returns The files written.
 */
export async function writeDemo(dataDir: string): Promise<DemoResult> {
  let tick = 0;
  const now = (): Date => new Date(_T0 + 7_000 * tick++);
  const usage = (input: number, output: number) => ({
    input,
    output,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: input + output,
  });
  const assistant = (
    content: ContentBlock[],
    stopReason = "stop",
    model = "claude-sonnet-4-5",
  ) => ({
    role: "assistant" as const,
    content,
    api: model.startsWith("gpt") ? "openai-responses" : "anthropic-messages",
    provider: model.startsWith("gpt") ? "openai" : "anthropic",
    model,
    usage: usage(1200, 180),
    stopReason,
  });

  // The main session: every entry type, a rename, a branch back, an image.
  const main = await Session.create({ cwd: _CWD, dataDir, now });
  main.enableAutoPersist();
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
      { type: "image", mimeType: "image/png", data: _demoImage().toBase64() },
    ],
  });
  await main.appendLabel(ask.id, "start ✨");
  await main.appendMessage(assistant([
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
    assistant([{
      type: "text",
      text: "It splits on \\n only, leaving a \\r on every line. ✓",
    }]),
  );
  await main.setTitle("CRLF in loadBlobs", "auto");
  await main.appendModelUsage({
    purpose: "title",
    api: "anthropic-messages",
    provider: "anthropic",
    model: "claude-haiku-4-5",
    usage: usage(300, 12),
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
  await main.appendMessage({
    role: "user",
    content: [{ type: "text", text: "Try a regex that handles both." }],
  });
  await main.appendMessage(
    assistant([{
      type: "text",
      text: "A regex works but is slow on 1 GB files.",
    }]),
  );
  // Branch back to the answer, with a summary of the abandoned approach.
  await main.appendBranchSummary(
    answer.id,
    "Abandoned: a regex split; too slow on big files.",
  );
  await main.appendModeChange("none");
  await main.appendModelChange("openai/gpt-5.1-codex");
  await main.appendThinkingLevelChange("high");
  await main.appendMessage({
    role: "user",
    content: [{
      type: "text",
      text: "Split on \\n and strip a trailing \\r instead.",
    }],
  });
  await main.appendMessage(
    assistant(
      [{
        type: "text",
        text: "Done: lines now lose a trailing \\r; tests cover CRLF. 🎉",
      }],
      "stop",
      "gpt-5.1-codex",
    ),
  );
  await main.appendCompaction({
    summary:
      "## Summary\nCRLF files broke loadBlobs; fixed by stripping a trailing \\r after splitting on \\n.",
    shortSummary: "CRLF fix in loadBlobs",
    firstKeptEntryId: ask.id,
    tokensBefore: 48_210,
  });
  await main.appendCredentialPin("openai", "sha256:demo");
  await main.appendMessage({
    role: "user",
    content: [{ type: "text", text: "Write the changelog line." }],
  });
  await main.appendMessage(
    assistant(
      [{ type: "text", text: "Fix: loadBlobs reads CRLF files." }],
      "stop",
      "gpt-5.1-codex",
    ),
  );
  await main.setTitle("Fix CRLF handling in loadBlobs 🛠️");
  await main.close();

  // A subagent child, inside the main session's artifacts folder. It is
  // marked by its place and its session_init entry, as omp marks its own:
  // a slot source "subagent" would make omp 18.3.4 refuse the file.
  const artifacts = main.path!.slice(0, -".jsonl".length);
  const child = await Session.create({
    cwd: _CWD,
    dataDir,
    path: join(artifacts, "1-Scout.jsonl"),
    parentSession: main.path!,
    now,
  });
  await child.appendModelChange("anthropic/claude-haiku-4-5");
  await child.appendSessionInit({
    systemPrompt: "You are a scout.",
    task: "Find CRLF tests",
    tools: ["grep", "read"],
  });
  await child.appendMessage({
    role: "user",
    content: [{ type: "text", text: "Find tests that mention CRLF." }],
  });
  await child.appendMessage(
    assistant(
      [{ type: "text", text: "test/blobs.test.ts covers it." }],
      "stop",
      "claude-haiku-4-5",
    ),
  );
  await child.ensureOnDisk();
  await child.close();

  // A fork of the main session.
  const fork = await forkSession(main.path!, undefined, {
    label: "CRLF fix, second try",
  });

  // A short session with a reset.
  const other = await Session.create({ cwd: _CWD, dataDir, now });
  await other.appendModelChange("anthropic/claude-sonnet-4-5");
  await other.appendMessage({
    role: "user",
    content: [{ type: "text", text: "What is 2 + 2?" }],
  });
  await other.appendMessage(assistant([{ type: "text", text: "4" }]));
  await other.appendResetBoundary();
  await other.appendMessage({
    role: "user",
    content: [{ type: "text", text: "New topic: list the TODOs." }],
  });
  await other.appendMessage(
    assistant([{ type: "text", text: "There are two TODOs in src/cli.ts." }]),
  );
  await other.ensureOnDisk();
  await other.setTitle("Quick questions");
  await other.close();

  await Deno.stat(dirname(fork.path)); // all in place
  return {
    dataDir,
    files: {
      main: main.path!,
      fork: fork.path,
      subagent: child.path!,
      reset: other.path!,
    },
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
