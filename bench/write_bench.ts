/**
 * The write side against the naive ways, in the same run:
 * - appends, single and batched, against reopen-append-close per entry;
 * - an `appendBatch` of 10,000 and a single locked `appendMessage` against
 *   the plainest unlocked append (issue 11's figures: entries/s = 10,000 /
 *   the time of one iteration; the ratio is the group summary's);
 * - a list of 1,000 sessions against parsing each file whole;
 * - a rename in place against a full rewrite.
 *
 *     deno task bench
 *
 * @module
 */

import { join } from "node:path";
import { encodeEntry } from "../src/format/entries.ts";
import { listSessions } from "../src/store/list.ts";
import { Session } from "../src/session/session.ts";
import {
  marshalTitleSlot,
  TITLE_SLOT_BYTES,
} from "../src/format/title_slot.ts";
import { SessionWriter } from "../src/write/_writer.ts";

const dir = await Deno.makeTempDir({ prefix: "xdev-write-bench-" });
globalThis.addEventListener(
  "unload",
  () => Deno.removeSync(dir, { recursive: true }),
);

/** A realistic ~1.25 KB message entry line (PERF-ANCHORS' append size). */
const TEXT =
  "Refactor the loader so it reads the file backwards; 数据 ✓ keeps the window. "
    .repeat(14);
const message = { role: "user", content: [{ type: "text", text: TEXT }] };
let n = 0;
const line = (): string =>
  encodeEntry({
    type: "message",
    id: (n++).toString(16).padStart(8, "0"),
    parentId: null,
    timestamp: "2026-11-30T09:00:00.000Z",
    message,
  } as never);

async function newSession(name: string): Promise<Session> {
  const s = await Session.create({
    cwd: "/home/dev/app",
    dataDir: dir,
    path: join(dir, `${name}.jsonl`),
  });
  await s.ensureOnDisk();
  return s;
}

// --- appends ------------------------------------------------------------

const BATCH = 100;
const single = await newSession("single");
const batched = await newSession("batched");
const writer = await SessionWriter.open(join(dir, "writer.jsonl"), {}).catch(
  async () => {
    await (await newSession("writer")).close();
    return await SessionWriter.open(join(dir, "writer.jsonl"));
  },
);
const naivePath = join(dir, "naive.jsonl");
await (await newSession("naive")).close();
const enc = new TextEncoder();

Deno.bench({
  name: "naive: open, append, close per entry (Deno.writeTextFile append)",
  group: "append 100 entries of ~1.25 KB",
  baseline: true,
  async fn() {
    for (let i = 0; i < BATCH; i++) {
      await Deno.writeTextFile(naivePath, `${line()}\n`, { append: true });
    }
  },
});
Deno.bench({
  name: "Session.appendMessage() one by one (ids, lock, one write each)",
  group: "append 100 entries of ~1.25 KB",
  async fn() {
    for (let i = 0; i < BATCH; i++) {
      await single.appendMessage(message as never);
    }
  },
});
Deno.bench({
  name: "Session.appendBatch() of 100 (one write)",
  group: "append 100 entries of ~1.25 KB",
  async fn() {
    await batched.appendBatch(
      Array.from({ length: BATCH }, () => ({ type: "message", message })),
    );
  },
});
Deno.bench({
  name: "SessionWriter.append() of 100 lines (no Session bookkeeping)",
  group: "append 100 entries of ~1.25 KB",
  async fn() {
    await writer.append(Array.from({ length: BATCH }, line));
  },
});

// --- appends at the rate of the disk (issue 11) -------------------------

/*
 * The plainest possible append, unlocked: one `Deno.writeTextFile(path,
 * line + "\n", { append: true })` per entry, its lines encoded before the
 * clock starts. Each iteration starts on a fresh file (made outside
 * `b.start()`/`b.end()`), so every row measures the same 10,000 entries of
 * ~1.25 KB; entries/s = 10,000 / the time of one iteration.
 */
const MANY = 10_000;
const manyPayloads = Array.from(
  { length: MANY },
  () => ({ type: "message", message }),
);
let fresh = 0;
async function freshFile(): Promise<string> {
  const s = await newSession(`fresh-${fresh++}`);
  await s.close();
  return s.path!;
}

Deno.bench({
  name: "naive: unlocked Deno.writeTextFile append, one per entry",
  group: "append 10,000 entries of ~1.25 KB",
  baseline: true,
  n: 5,
  warmup: 1,
  async fn(b) {
    const path = await freshFile();
    const lines = Array.from({ length: MANY }, () => `${line()}\n`);
    b.start();
    for (let i = 0; i < MANY; i++) {
      await Deno.writeTextFile(path, lines[i]!, { append: true });
    }
    b.end();
    await Deno.remove(path);
  },
});
Deno.bench({
  name: "Session.appendBatch() of 10,000 (ids, lock, one write)",
  group: "append 10,000 entries of ~1.25 KB",
  n: 5,
  warmup: 1,
  async fn(b) {
    const path = await freshFile();
    const s = await Session.open(path);
    b.start();
    await s.appendBatch(manyPayloads);
    b.end();
    await s.close();
    await Deno.remove(path);
  },
});

const lockedPath = await freshFile();
const locked = await Session.open(lockedPath);
const naiveOnePath = await freshFile();
const oneLine = `${line()}\n`;
Deno.bench({
  name: "naive: one unlocked Deno.writeTextFile append",
  group: "append 1 entry of ~1.25 KB",
  baseline: true,
  n: 2_000,
  async fn() {
    await Deno.writeTextFile(naiveOnePath, oneLine, { append: true });
  },
});
Deno.bench({
  name: "Session.appendMessage() (id, omp's lock, one write)",
  group: "append 1 entry of ~1.25 KB",
  n: 2_000,
  async fn() {
    await locked.appendMessage(message as never);
  },
});

// --- listing ------------------------------------------------------------

const listDir = join(dir, "list");
const slug = join(listDir, "sessions", "-src-app");
await Deno.mkdir(slug, { recursive: true });
const body = enc.encode(
  Array.from({ length: 40 }, line).map((l) => `${l}\n`).join(""),
); // ~50 KB per session
for (let i = 0; i < 1000; i++) {
  const id = `01a22a94-0000-7000-8000-${i.toString(16).padStart(12, "0")}`;
  const header = {
    type: "session",
    version: 3,
    id,
    timestamp: "2026-11-30T09:00:00.000Z",
    cwd: "/src/app",
  };
  const slot = marshalTitleSlot({
    title: `Session ${i} ✓`,
    source: "auto",
    updatedAt: header.timestamp,
  });
  const rest = enc.encode(`${JSON.stringify(header)}\n`);
  const file = new Uint8Array(slot.length + rest.length + body.length);
  file.set(slot);
  file.set(rest, slot.length);
  file.set(body, slot.length + rest.length);
  await Deno.writeFile(
    join(slug, `2026-11-30T09-00-00-000Z_${id}.jsonl`),
    file,
  );
}

Deno.bench({
  name: "naive: read and parse every file whole",
  group: "list 1,000 sessions of ~50 KB",
  baseline: true,
  async fn() {
    const out = [];
    for await (const e of Deno.readDir(slug)) {
      const lines = (await Deno.readTextFile(join(slug, e.name))).split("\n");
      const entries = lines.slice(2).filter((l) => l !== "").map((l) =>
        JSON.parse(l)
      );
      out.push({
        header: JSON.parse(lines[1]!),
        title: JSON.parse(lines[0]!).title,
        n: entries.length,
      });
    }
    if (out.length !== 1000) throw new Error("missed sessions");
  },
});
Deno.bench({
  name: "listSessions() (4 KiB per file)",
  group: "list 1,000 sessions of ~50 KB",
  async fn() {
    if ((await listSessions(listDir)).length !== 1000) {
      throw new Error("missed sessions");
    }
  },
});

// --- renaming -----------------------------------------------------------

const big = await newSession("rename");
await big.appendBatch(
  Array.from({ length: 4000 }, () => ({ type: "message", message })),
); // ~5 MB
let t = 0;
Deno.bench({
  name: "naive: rewrite the whole file with a new title line",
  group: "rename a 5 MB session",
  baseline: true,
  async fn() {
    const bytes = await Deno.readFile(big.path!);
    const slot = marshalTitleSlot({
      title: `Renamed ${t++}`,
      source: "manual",
      updatedAt: new Date().toISOString(),
    });
    const out = new Uint8Array(bytes.length);
    out.set(slot);
    out.set(bytes.subarray(TITLE_SLOT_BYTES), TITLE_SLOT_BYTES);
    const tmp = `${big.path}.tmp`;
    await Deno.writeFile(tmp, out);
    await Deno.rename(tmp, big.path!);
  },
});
Deno.bench({
  name: "Session.setTitle() (title_change entry + 256 bytes in place)",
  group: "rename a 5 MB session",
  async fn() {
    await big.setTitle(`Renamed ${t++}`);
  },
});
