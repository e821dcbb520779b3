/**
 * Crash at every point: a session file cut at every byte of an append (and
 * of a batch), then opened, appended to and opened again. Only the torn
 * entry may be lost; every earlier byte stays as it was.
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { encodeEntry } from "../../src/format/entries.ts";
import { parseEnvelope } from "../../src/read/_envelope.ts";
import { type LoadIssueKind, Session, type SessionEntry } from "../../mod.ts";
import { tempDir } from "../_session_files.ts";

const T = Date.parse("2026-10-01T09:00:00.000Z");
const NL = 0x0a;
const decoder = new TextDecoder();
const strict = new TextDecoder("utf-8", { fatal: true });

function isUtf8(bytes: Uint8Array): boolean {
  try {
    strict.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

function clock(): () => Date {
  let n = 0;
  return () => new Date(T + 1000 * n++);
}

const usage = { input: 10, output: 5, totalTokens: 15 };

/** A session of 10 entries written by Session.create + ensureOnDisk; returns its path and bytes. */
async function writeBase(dataDir: string): Promise<string> {
  const s = await Session.create({
    cwd: "/home/dev/app",
    dataDir,
    now: clock(),
  });
  await s.appendModelChange("anthropic/claude-sonnet-4-5");
  await s.appendThinkingLevelChange("high");
  const first = await s.appendMessage({
    role: "user",
    content: "Read a.ts and tell me what it does",
  });
  await s.appendMessage({
    role: "assistant",
    content: [{ type: "text", text: "Reading." }, {
      type: "toolCall",
      id: "call_1",
      name: "read",
      arguments: { path: "a.ts" },
    }],
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    api: "anthropic-messages",
    usage,
    stopReason: "toolUse",
  });
  await s.appendMessage({
    role: "toolResult",
    toolCallId: "call_1",
    toolName: "read",
    content: [{ type: "text", text: "export const a = 1;" }],
    isError: false,
  });
  await s.appendMessage({
    role: "assistant",
    content: [{ type: "text", text: "It exports a constant." }],
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    api: "anthropic-messages",
    usage,
    stopReason: "stop",
  });
  await s.appendLabel(first.id, "start");
  await s.appendCustom("todo-state", { items: 1 });
  await s.appendMessage({ role: "user", content: "Now b.ts, please" });
  await s.appendMessage({
    role: "assistant",
    content: [{ type: "text", text: "b.ts is empty." }],
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    api: "anthropic-messages",
    usage,
    stopReason: "stop",
  });
  await s.ensureOnDisk();
  await s.close();
  return s.path!;
}

/** ~300 bytes of non-ASCII text. */
const NON_ASCII = "Grüße aus Zürich, 世界 ✓ — naïve café 🚀 ".repeat(5);

/** The byte offsets just after each "\n" in `bytes`, from `from`. */
function lineEnds(bytes: Uint8Array, from: number): number[] {
  const out: number[] = [];
  for (let i = bytes.indexOf(NL, from); i >= 0; i = bytes.indexOf(NL, i + 1)) {
    out.push(i + 1);
  }
  return out;
}

/** The entries of a file's complete lines after the header, by parsing them (the reference). */
function entryLines(bytes: Uint8Array): { id: string; line: string }[] {
  const text = decoder.decode(bytes);
  return text.split("\n").slice(2, -1).map((line) => ({
    id: (JSON.parse(line) as { id: string }).id,
    line,
  }));
}

interface Expected {
  /** Entries that must be in memory, each with its line as on disk. */
  survivors: { id: string; line: string }[];
  /** The context the open must rebuild. */
  context: ReturnType<Session["buildContext"]>;
  /** The leaf. */
  leaf: string;
  /** Issues the open must report, in order. */
  issues: LoadIssueKind[];
}

interface Tally {
  cases: number;
  entries: number;
  lost: number;
}

/** Opens `path` both ways and checks it against `expected`. */
async function checkOpen(
  path: string,
  dataDir: string,
  expected: Expected,
  tally: Tally,
  label: string,
): Promise<void> {
  const bytes = await Deno.readFile(path);
  for (const window of [true, false]) {
    const where = `${label}, window ${window}`;
    await using s = await Session.open(path, { dataDir, window });
    tally.cases++;
    for (const { id, line } of expected.survivors) {
      const e = s.getEntry(id);
      tally.entries++;
      if (e === undefined) {
        tally.lost++;
        assert.fail(`${where}: entry ${id} was lost`);
      }
      assert.equal(encodeEntry(e), line, `${where}: entry ${id} changed`);
    }
    assert.equal(s.leafId, expected.leaf, `${where}: leaf`);
    assert.deepEqual(
      s.issues.map((i) => i.kind),
      expected.issues,
      `${where}: issues`,
    );
    assert.deepEqual(s.buildContext(), expected.context, `${where}: context`);
  }
  assert.deepEqual(await Deno.readFile(path), bytes, `${label}: open wrote`);
}

/** Appends after the crash and checks the earlier bytes and the new entry. */
async function checkAppendAfter(
  path: string,
  dataDir: string,
  expected: Expected,
  tally: Tally,
  label: string,
): Promise<void> {
  const before = await Deno.readFile(path);
  const text = `after the crash at ${label} ✓`;
  let added: SessionEntry;
  {
    await using s = await Session.open(path, { dataDir });
    added = await s.appendMessage({ role: "user", content: text });
  }
  assert.equal(added.parentId, expected.leaf, `${label}: the new parent`);
  const after = await Deno.readFile(path);
  assert.deepEqual(
    after.subarray(0, before.length),
    before,
    `${label}: earlier bytes changed`,
  );
  const torn = before.length > 0 && before[before.length - 1] !== NL;
  const tail = decoder.decode(after.subarray(before.length));
  assert.equal(
    tail,
    `${torn ? "\n" : ""}${encodeEntry(added)}\n`,
    `${label}: the appended bytes`,
  );
  // The complete-but-unterminated line (the only torn line that parses)
  // becomes a whole line again; a torn line stays, alone, as not-json, or,
  // when what survived ends in "}" after an intact envelope, as a damaged
  // entry (a chain node off the path: nothing names it as a parent).
  const tornLine = before.subarray(before.lastIndexOf(NL) + 1);
  const tornKind: LoadIssueKind = tornLine.at(-1) === 0x7d &&
      parseEnvelope(tornLine) !== undefined
    ? "damaged-entry"
    : "not-json";
  const issues = expected.issues.flatMap((k): LoadIssueKind[] =>
    k === "missing-newline" ? [] : k === "torn-line" ? [tornKind] : [k]
  );
  for (const window of [true, false]) {
    await using s = await Session.open(path, { dataDir, window });
    tally.cases++;
    for (const { id, line } of expected.survivors) {
      const e = s.getEntry(id);
      tally.entries++;
      if (e === undefined) tally.lost++;
      assert.ok(e, `${label}: entry ${id} lost after the next append`);
      assert.equal(encodeEntry(e), line);
    }
    assert.equal(s.leafId, added.id, `${label}: the new leaf`);
    const kinds = s.issues.map((i) => i.kind);
    if (window) {
      // The windowed open parses only lines that can matter: a torn line
      // whose envelope survived is off the path and skipped unread.
      for (const k of kinds) assert.ok(issues.includes(k), `${label}: ${k}`);
    } else assert.deepEqual(kinds, issues, `${label}: issues`);
    const messages = s.buildContext().messages;
    assert.deepEqual(
      messages.slice(0, -1),
      expected.context.messages,
      `${label}: context before the new entry`,
    );
    assert.equal(
      (messages.at(-1) as { content?: unknown } | undefined)?.content,
      text,
    );
  }
}

/** The reference context of the file made of `bytes` (complete lines only). */
async function reference(
  dir: string,
  dataDir: string,
  bytes: Uint8Array,
): Promise<{ context: ReturnType<Session["buildContext"]>; leaf: string }> {
  const path = join(dir, "reference.jsonl");
  await Deno.writeFile(path, bytes);
  await using s = await Session.open(path, { dataDir, window: false });
  assert.deepEqual(s.issues, [], "the reference loads without damage");
  return { context: s.buildContext(), leaf: s.leafId! };
}

/** What must survive a cut at `cut` of `full`, whose new lines start at `base`. */
function expectedAt(
  full: Uint8Array,
  base: number,
  cut: number,
  refs: { context: ReturnType<Session["buildContext"]>; leaf: string }[],
  nulTail: boolean,
): Expected {
  const ends = lineEnds(full, base);
  const complete = ends.filter((e) => e <= cut).length;
  const lastEnd = complete === 0 ? base : ends[complete - 1]!;
  const partial = cut - lastEnd;
  // A cut exactly before a line's "\n" leaves a line that parses: it is kept
  // (reported as missing its newline), unless a NUL tail is glued to it.
  const unterminatedWhole = partial > 0 && cut === ends[complete]! - 1 &&
    !nulTail;
  const kept = complete + (unterminatedWhole ? 1 : 0);
  const keptEnd = kept === 0 ? base : ends[kept - 1]!;
  const survivors = entryLines(full.subarray(0, keptEnd));
  const issues: LoadIssueKind[] = [];
  if (partial > 0 && !isUtf8(full.subarray(lastEnd, cut))) {
    issues.push("invalid-utf8"); // cut inside a character
  }
  if (unterminatedWhole) issues.push("missing-newline");
  else if (partial > 0) issues.push("torn-line");
  else if (nulTail) issues.push("nul-fill"); // NULs alone, without "\n", at the end
  return { survivors, ...refs[kept]!, issues };
}

async function crashEverywhere(
  name: string,
  doAppend: (s: Session) => Promise<unknown>,
): Promise<Tally> {
  await using dir = await tempDir();
  const dataDir = dir.path;
  const path = await writeBase(dataDir);
  const base = await Deno.readFile(path);
  {
    await using s = await Session.open(path, { dataDir, now: clock() });
    await doAppend(s);
  }
  const full = await Deno.readFile(path);
  assert.deepEqual(full.subarray(0, base.length), base);
  const ends = lineEnds(full, base.length);
  const refs = [await reference(dir.path, dataDir, base)];
  for (const end of ends) {
    refs.push(await reference(dir.path, dataDir, full.subarray(0, end)));
  }
  {
    await using s = await Session.open(path, { dataDir });
    assert.deepEqual(s.buildContext(), refs.at(-1)!.context);
  }
  const tally: Tally = { cases: 0, entries: 0, lost: 0 };
  const work = join(dir.path, "crashed.jsonl");
  for (let cut = base.length; cut < full.length; cut++) {
    const expected = expectedAt(full, base.length, cut, refs, false);
    const label = `${name}, cut at byte ${cut - base.length} of ${
      full.length - base.length
    }`;
    await Deno.writeFile(work, full.subarray(0, cut));
    await checkOpen(work, dataDir, expected, tally, label);
    await checkAppendAfter(work, dataDir, expected, tally, label);
  }
  return tally;
}

/** Bytes of NULs a filesystem may leave after a crash (one block). */
const NUL_TAIL = 4096;

Deno.test("Session.open() after a crash at every byte of an append loses only the torn entry", async () => {
  const tally = await crashEverywhere("append", async (s) => {
    const e = await s.appendMessage({
      role: "user",
      content: [{ type: "text", text: NON_ASCII }],
    });
    const line = encodeEntry(e);
    assert.ok(
      new TextEncoder().encode(line).length >= 300,
      "a representative ~300-byte line",
    );
  });
  console.log(
    `crash/append: ${tally.cases} opens after a cut, ${tally.entries} entries checked, lost = ${tally.lost}`,
  );
  assert.equal(tally.lost, 0);
});

Deno.test("Session.open() after a crash at every byte of a 3-entry batch keeps each complete line", async () => {
  const tally = await crashEverywhere("batch", async (s) => {
    const written = await s.appendBatch([
      {
        type: "message",
        message: {
          role: "assistant",
          content: [{ type: "text", text: "Je regarde « c.ts » …" }, {
            type: "toolCall",
            id: "call_2",
            name: "read",
            arguments: { path: "c.ts" },
          }],
          provider: "anthropic",
          model: "claude-sonnet-4-5",
          api: "anthropic-messages",
          usage,
          stopReason: "toolUse",
        },
      },
      {
        type: "message",
        message: {
          role: "toolResult",
          toolCallId: "call_2",
          toolName: "read",
          content: [{ type: "text", text: "// c.ts: 空のファイル" }],
          isError: false,
        },
      },
      {
        type: "message",
        message: { role: "user", content: "Danke! Und d.ts?" },
      },
    ]);
    assert.equal(written.length, 3);
  });
  console.log(
    `crash/batch: ${tally.cases} opens after a cut, ${tally.entries} entries checked, lost = ${tally.lost}`,
  );
  assert.equal(tally.lost, 0);
});

Deno.test("Session.open() after a crash that leaves a NUL-filled tail loses only the torn entry", async () => {
  await using dir = await tempDir();
  const dataDir = dir.path;
  const path = await writeBase(dataDir);
  const base = await Deno.readFile(path);
  {
    await using s = await Session.open(path, { dataDir, now: clock() });
    await s.appendMessage({ role: "user", content: NON_ASCII });
  }
  const full = await Deno.readFile(path);
  const refs = [
    await reference(dir.path, dataDir, base),
    await reference(dir.path, dataDir, full),
  ];
  const tally: Tally = { cases: 0, entries: 0, lost: 0 };
  const work = join(dir.path, "crashed.jsonl");
  // Every 7th byte of the line, and its first and last bytes: the torn line
  // and the NULs form one unterminated line.
  const cuts = new Set<number>([base.length, full.length - 1]);
  for (let cut = base.length; cut < full.length; cut += 7) cuts.add(cut);
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    const label = `NUL tail, cut at byte ${cut - base.length}`;
    const expected = expectedAt(full, base.length, cut, refs, true);
    {
      await Deno.writeFile(work, full.subarray(0, cut));
      using file = await Deno.open(work, { write: true });
      await file.truncate(cut + NUL_TAIL); // extends with zeros
    }
    await checkOpen(work, dataDir, expected, tally, label);
    await checkAppendAfter(work, dataDir, expected, tally, label);
  }
  // NULs after a complete last line, ending in "\n" (a preallocated block the
  // next append was written over): a line of its own, reported as nul-fill.
  {
    const label = "NUL line after the last complete line";
    const nulLine = new Uint8Array(NUL_TAIL + 1);
    nulLine[NUL_TAIL] = NL;
    const bytes = new Uint8Array(full.length + nulLine.length);
    bytes.set(full);
    bytes.set(nulLine, full.length);
    await Deno.writeFile(work, bytes);
    const expected: Expected = {
      survivors: entryLines(full),
      ...refs[1]!,
      issues: ["nul-fill"],
    };
    await checkOpen(work, dataDir, expected, tally, label);
    await checkAppendAfter(work, dataDir, expected, tally, label);
  }
  console.log(
    `crash/NUL tail: ${tally.cases} opens after a cut, ${tally.entries} entries checked, lost = ${tally.lost}`,
  );
  assert.equal(tally.lost, 0);
});
