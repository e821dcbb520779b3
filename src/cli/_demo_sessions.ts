/**
 * The sessions `cli demo` writes, each through the public API as an agent
 * would write it.
 *
 * @module
 */

import { join } from "node:path";
import type { ContentBlock } from "../format/messages.ts";
import { Session } from "../session/session.ts";

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
