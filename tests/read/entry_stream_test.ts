import { deepStrictEqual, equal, rejects } from "node:assert/strict";
import {
  type LoadIssue,
  Session,
  SessionEntryStream,
  type SessionRecord,
  SessionSyntaxError,
} from "../../mod.ts";
import { assistant, chunked, sessionBytes, user } from "../_session_files.ts";

const enc = new TextEncoder();

async function records(
  bytes: Uint8Array,
  size: number,
): Promise<{ records: SessionRecord[]; issues: LoadIssue[] }> {
  const issues: LoadIssue[] = [];
  const records: SessionRecord[] = [];
  const stream = chunked(bytes, size).pipeThrough(
    new SessionEntryStream({ onIssue: (i) => issues.push(i) }),
  );
  for await (const r of stream) records.push(r);
  return { records, issues };
}

Deno.test("SessionEntryStream reads around damage the way Session.open does, whatever the chunk size", async () => {
  const a = user("0000000a", null, "first ✓ 数据 🎉");
  const b = assistant("0000000b", "0000000a", "second");
  const c = user("0000000c", "0000000b", "third");
  const damaged = sessionBytes([
    a,
    "",
    "{not json",
    new Uint8Array([...enc.encode(JSON.stringify(b)), 13, 10]),
    new Uint8Array(300), // NUL run, then a newline
    enc.encode("\n"),
    enc.encode(JSON.stringify(c).slice(0, 25)), // torn
  ]);
  const expected = await records(damaged, damaged.length);
  deepStrictEqual(expected.records.map((r) => r.kind), [
    "title",
    "header",
    "entry",
    "entry",
  ]);
  deepStrictEqual(expected.issues.map((i) => i.kind), [
    "blank-line",
    "not-json",
    "nul-fill",
    "torn-line",
  ]);
  for (const size of [1, 2, 3, 5, 64, 4096]) {
    deepStrictEqual(
      await records(damaged, size),
      expected,
      `chunks of ${size}`,
    );
  }
  // The same issues as a full open of the same bytes.
  const issues: LoadIssue[] = [];
  await using s = await Session.fromStream(chunked(damaged, 7), {
    onIssue: (i) => issues.push(i),
  });
  deepStrictEqual(issues, expected.issues);
  equal(s.entries.length, 2);
});

Deno.test("SessionEntryStream gives positions that add up to the file", async () => {
  const bytes = sessionBytes([
    user("0000000a", null, "x"),
    user("0000000b", "0000000a", "y"),
  ]);
  const { records: rs } = await records(bytes, 3);
  equal(rs.at(-1)!.offset + rs.at(-1)!.size, bytes.length);
  deepStrictEqual(rs.map((r) => r.line), [1, 2, 3, 4]);
});

Deno.test("SessionEntryStream migrates a version 1 file on the fly", async () => {
  const header = {
    type: "session",
    id: "x",
    timestamp: "2026-01-01T00:00:00.000Z",
    cwd: "/",
  };
  const bytes = sessionBytes([{
    type: "message",
    message: { role: "user", content: "hi" },
  }], { slot: false, header });
  const { records: rs } = await records(bytes, 4);
  deepStrictEqual(rs.map((r) => r.kind), ["header", "entry"]);
  equal((rs[1]!.value as { id: string }).id, "00000001");
});

Deno.test("SessionEntryStream errors the stream for an unreadable header", async () => {
  const bytes = sessionBytes([], { header: "{nope" });
  await rejects(records(bytes, 2), SessionSyntaxError);
});
