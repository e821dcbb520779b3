import { equal, ok } from "node:assert/strict";
import { dirname } from "node:path";
import { Session } from "../../mod.ts";
import {
  writeMainSession,
  writeResetSession,
  writeSubagentSession,
} from "../../src/cli/_demo_sessions.ts";
import { tempDir } from "../_session_files.ts";

Deno.test("writeMainSession() and its children load without damage", async (t) => {
  await using dir = await tempDir();
  let tick = 0;
  const now = () => new Date(Date.UTC(2026, 10, 30, 9) + 1000 * tick++);
  const main = await writeMainSession(dir.path, now);
  await t.step(
    "the main session: renamed, compacted, with an image blob",
    async () => {
      await using s = await Session.open(main);
      equal(s.issues.length, 0);
      equal(s.title, "Fix CRLF handling in loadBlobs 🛠️");
      const ctx = s.buildContext();
      equal(ctx.model, "openai/gpt-5.1-codex");
      equal(ctx.thinkingLevel, "high");
      ok(ctx.messages.some((m) => m.role === "compactionSummary"));
    },
  );
  await t.step(
    "the subagent child, in the main session's artifacts folder",
    async () => {
      const child = await writeSubagentSession(dir.path, main, now);
      equal(dirname(child), main.slice(0, -".jsonl".length));
      await using s = await Session.open(child);
      equal(s.header.parentSession, main);
      equal(s.issues.length, 0);
    },
  );
  await t.step("the reset session keeps what follows the reset", async () => {
    await using s = await Session.open(await writeResetSession(dir.path, now));
    equal(s.title, "Quick questions");
    equal(s.buildContext().messages.length, 2);
  });
});
