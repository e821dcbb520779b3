/**
 * Several processes appending to one session file at once (through
 * `Session.open` + `appendMessage`/`appendBatch`, each in its own Deno
 * process), and this library taking turns with real omp on one file.
 *
 * The 4-process case appends 10,000 entries per process, one
 * `appendMessage` each (the issue's figure): 6–8 s on an idle 2-core machine
 * (each append takes omp's lock: the OS gate, the lock file, a stat for a
 * replaced file, one write), up to ~36 s when the machine is busy. It is run
 * again with `appendBatch` of 100.
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { Session, type SessionEntry } from "../../mod.ts";
import { tempDir } from "../_session_files.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const WORKER = new URL("../_append_worker.ts", import.meta.url).pathname;
const OMP = new URL("../../.cache/omp/", import.meta.url).pathname;
const BUN = join(OMP, "node_modules", ".bin", "bun");

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}

const HAS_OMP = await exists(BUN) && await exists(join(OMP, "oracle.ts"));

/** A new session with two entries; returns its path and its leaf. */
async function baseSession(
  dir: string,
): Promise<{ path: string; leaf: string }> {
  const s = await Session.create({
    cwd: "/home/dev/app",
    dataDir: dir,
    path: join(dir, "shared.jsonl"),
  });
  await s.appendModelChange("anthropic/claude-sonnet-4-5");
  const m = await s.appendMessage({ role: "user", content: "start ✓" });
  await s.ensureOnDisk();
  await s.close();
  return { path: s.path!, leaf: m.id };
}

interface Race {
  /** Wall time from the go signal to the last worker's exit, ms. */
  ms: number;
  /** Each worker's own time, ms. */
  workerMs: number[];
  /** The entries each worker appended. */
  counts: number[];
}

/** Runs `workers` processes appending `count` entries each, `batch` at a time, all at once. */
async function race(
  path: string,
  workers: number,
  count: number,
  batch: number,
  pauseMs = 0,
  stop?: string,
): Promise<Race> {
  const go = `${path}.go`;
  const children = Array.from(
    { length: workers },
    (_, w) =>
      new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-A",
          WORKER,
          path,
          String(w),
          String(count),
          String(batch),
          go,
          String(pauseMs),
          ...(stop === undefined ? [] : [stop]),
        ],
        cwd: ROOT,
        stdout: "piped",
        stderr: "piped",
      }).spawn(),
  );
  // Every worker has opened the session (same leaf) before any appends.
  const deadline = Date.now() + 60_000;
  for (let w = 0; w < workers; w++) {
    while (!await exists(`${go}.${w}`)) {
      assert.ok(Date.now() < deadline, `worker ${w} never got ready`);
      await new Promise((r) => setTimeout(r, 5));
    }
  }
  const start = performance.now();
  await Deno.writeTextFile(go, "go\n");
  const outs = await Promise.all(children.map((c) => c.output()));
  const ms = performance.now() - start;
  const workerMs: number[] = [];
  const counts: number[] = [];
  for (const [w, out] of outs.entries()) {
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, `worker ${w} failed: ${stderr}`);
    const report = JSON.parse(new TextDecoder().decode(out.stdout)) as {
      worker: number;
      count: number;
      ms: number;
    };
    if (stop === undefined) assert.equal(report.count, count);
    counts.push(report.count);
    workerMs.push(report.ms);
  }
  await Deno.remove(go);
  for (let w = 0; w < workers; w++) await Deno.remove(`${go}.${w}`);
  return { ms: Math.round(ms), workerMs, counts };
}

interface LineCheck {
  lines: number;
  /** Ids written by two workers (8 hex digits drawn at random by each process). */
  duplicateIds: number;
}

/**
 * Checks the file after a race: the bytes before it unchanged; every line
 * after it whole, parsing, one worker's message; per worker, every entry
 * present once and in order, each the child of the worker's previous one.
 */
function checkLines(
  before: Uint8Array,
  after: Uint8Array,
  workers: number,
  count: number,
  leaf: string,
): LineCheck {
  assert.deepEqual(after.subarray(0, before.length), before, "earlier bytes");
  const text = new TextDecoder().decode(after.subarray(before.length));
  assert.ok(text.endsWith("\n"), "the file ends in a whole line");
  const lines = text.slice(0, -1).split("\n");
  const next = new Array<number>(workers).fill(0);
  const lastId = new Array<string>(workers).fill(leaf);
  const ids = new Set<string>();
  let duplicateIds = 0;
  for (const [n, line] of lines.entries()) {
    let entry: SessionEntry & { message: { content: string } };
    try {
      entry = JSON.parse(line);
    } catch {
      assert.fail(`line ${n} after the race is not JSON (interleaved?)`);
    }
    assert.equal(entry.type, "message");
    const { w, i, pad } = JSON.parse(entry.message.content) as {
      w: number;
      i: number;
      pad: string;
    };
    assert.equal(i, next[w], `worker ${w}: entry ${i} out of order`);
    assert.equal(pad, "ü".repeat(w * 23 + (i % 7)), "the line is whole");
    assert.equal(entry.parentId, lastId[w], `worker ${w}: entry ${i}'s parent`);
    if (ids.has(entry.id)) duplicateIds++;
    ids.add(entry.id);
    next[w] = i + 1;
    lastId[w] = entry.id;
  }
  assert.deepEqual(next, new Array(workers).fill(count), "no line lost");
  assert.equal(lines.length, workers * count);
  return { lines: lines.length, duplicateIds };
}

async function raceCase(
  workers: number,
  count: number,
  batch: number,
): Promise<void> {
  await using dir = await tempDir();
  const { path, leaf } = await baseSession(dir.path);
  const before = await Deno.readFile(path);
  const r = await race(path, workers, count, batch);
  const after = await Deno.readFile(path);
  const check = checkLines(before, after, workers, count, leaf);
  // The library reads it all back: no damage; every line an entry.
  await using s = await Session.open(path, { window: false });
  const kinds = new Set(s.issues.map((i) => i.kind));
  kinds.delete("duplicate-id"); // see checkLines: ids are random per process
  assert.deepEqual([...kinds], []);
  assert.equal(s.entries.length, 2 + workers * count);
  await using w = await Session.open(path);
  assert.equal(w.leafId, s.leafId);
  assert.deepEqual(w.buildContext().messages, s.buildContext().messages);
  const how = batch === 1 ? "appendMessage" : `appendBatch of ${batch}`;
  console.log(
    `concurrency: ${workers} processes × ${count} entries (${how}): ${check.lines} lines checked, lost = 0, interleaved = 0, ${r.ms} ms (${
      Math.round(check.lines / (r.ms / 1000))
    } entries/s; workers ${
      r.workerMs.join("/")
    } ms); ids drawn twice across processes: ${check.duplicateIds}`,
  );
}

Deno.test("Session appends from 2 processes at once: every line whole, none lost, each process's entries in order", async () => {
  await raceCase(2, 1_000, 1);
});

Deno.test("Session appends from 3 processes at once: every line whole, none lost, each process's entries in order", async () => {
  await raceCase(3, 1_000, 1);
});

Deno.test("Session appends from 4 processes at once, 10,000 entries each: every line whole, none lost, in order", async () => {
  await raceCase(4, 10_000, 1);
});

Deno.test("Session batches from 4 processes at once, 100 entries a batch: every batch whole and in order", async () => {
  await raceCase(4, 10_000, 100);
});

// ------------------------------------------------------------ ids

/*
 * An entry id is 8 random hex digits. After a windowed open, memory holds
 * the window alone, so a new id is also checked against every id of the file
 * (`session/_ids.ts`, scanned once); otherwise it could take the id of an
 * entry before the window, the later duplicate would win on load, and a
 * path through the old entry (a branch back into history) would be cut as a
 * cycle. The draw is forced here to the old entry's id.
 */
Deno.test({
  name:
    "Session.append() after a windowed open never reuses the id of an entry outside the window",

  fn: async () => {
    await using dir = await tempDir();
    const s = await Session.create({
      cwd: "/x",
      dataDir: dir.path,
      path: join(dir.path, "ids.jsonl"),
    });
    const old = await s.appendMessage({ role: "user", content: "old" });
    const answer = await s.appendMessage({
      role: "assistant",
      content: [{ type: "text", text: "answer to old" }],
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      api: "anthropic-messages",
      usage: { input: 1, output: 1, totalTokens: 2 },
      stopReason: "stop",
    });
    const kept = await s.appendMessage({ role: "user", content: "kept" });
    await s.appendCompaction({
      summary: "summary",
      firstKeptEntryId: kept.id,
      tokensBefore: 10,
    });
    await s.ensureOnDisk();
    await s.close();
    let added: SessionEntry;
    {
      await using again = await Session.open(s.path!);
      assert.equal(again.getEntry(old.id), undefined, "outside the window");
      // The next id drawn is the old entry's (1 chance in 2^32 per entry
      // outside the window, forced here).
      const real = crypto.getRandomValues;
      let first = true;
      crypto.getRandomValues = (<T extends ArrayBufferView | null>(a: T): T => {
        if (first && a instanceof Uint8Array && a.length === 4) {
          first = false;
          a.set(Uint8Array.fromHex(old.id));
          return a;
        }
        return real.call(crypto, a as Uint8Array) as unknown as T;
      }) as typeof crypto.getRandomValues;
      try {
        added = await again.appendMessage({ role: "user", content: "new" });
      } finally {
        crypto.getRandomValues = real;
      }
      // The user goes back to the answer before the compaction.
      await again.branch(answer.id);
    }
    await using reopened = await Session.open(s.path!, { window: false });
    const texts = reopened.buildContext().messages.map((m) => {
      const c = (m as { content: unknown }).content;
      if (typeof c === "string") return c;
      return Array.isArray(c) ? (c as { text: string }[])[0]?.text : m.role;
    });
    // Were the id reused: ["compactionSummary", "kept", "new", "answer to
    // old"] ("old"'s id would name "new").
    assert.deepEqual(texts, ["old", "answer to old"]);
    assert.notEqual(added.id, old.id, "an id already in the file");
  },
});

// ------------------------------------------------------------ omp

/** Runs the omp oracle's `roundtrip` on `path`: omp opens it in place and appends one user message. */
async function ompRoundtrip(
  path: string,
  text: string,
): Promise<Record<string, unknown>> {
  const out = await new Deno.Command(BUN, {
    args: ["oracle.ts", "roundtrip", path, "--text", text],
    cwd: OMP,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(out.stdout);
  try {
    return JSON.parse(stdout);
  } catch {
    throw new Error(
      `omp roundtrip printed no JSON (exit ${out.code}): ${
        new TextDecoder().decode(out.stderr).slice(0, 500)
      }`,
    );
  }
}

const NO_OMP =
  "the omp oracle is absent (.cache/omp/node_modules/.bin/bun): run `deno task interop` once to install it";

Deno.test({
  name:
    "Session appends and omp appends take turns on one file: 5 rounds, every entry of both loads",
  ignore: !HAS_OMP,
  fn: async () => {
    await using dir = await tempDir();
    const { path } = await baseSession(dir.path);
    const expected: string[] = ["start ✓"];
    let previous = await Deno.readFile(path);
    for (let round = 1; round <= 5; round++) {
      {
        await using s = await Session.open(path);
        const text = `ours ${round} ✓`;
        await s.appendMessage({ role: "user", content: text });
        expected.push(text);
      }
      const ompText = `omp ${round} ✅`;
      const r = await ompRoundtrip(path, ompText);
      assert.equal(r.ok, true, `omp round ${round}: ${JSON.stringify(r)}`);
      assert.equal(r.appendOnly, true, "omp appended, it did not rewrite");
      expected.push(ompText);
      const now = await Deno.readFile(path);
      assert.deepEqual(now.subarray(0, previous.length), previous);
      previous = now;
    }
    for (const window of [true, false]) {
      await using s = await Session.open(path, { window });
      assert.deepEqual(s.issues, []);
      const texts = s.buildContext().messages.map((m) => {
        const c = (m as { content: unknown }).content;
        return typeof c === "string" ? c : (c as { text: string }[])[0]!.text;
      });
      assert.deepEqual(texts, expected);
    }
    console.log(
      `concurrency/omp: 5 rounds, ${expected.length} messages of both writers load, lost = 0`,
    );
  },
});

Deno.test({
  name:
    "Session appends from another process while omp appends at the same time: omp's lock file orders them, every line whole",
  ignore: !HAS_OMP,
  fn: async () => {
    await using dir = await tempDir();
    const { path, leaf } = await baseSession(dir.path);
    const before = await Deno.readFile(path);
    // Ours appends at an agent's pace until told to stop; omp's roundtrips
    // start once one of ours is in, and ours stops only after one more of
    // its lines follows them, so omp's fall between ours on any machine.
    const stop = `${path}.stop`;
    const ours = race(path, 1, 1_000_000, 1, 10, stop);
    const grown = async (than: number) => {
      while ((await Deno.stat(path)).size <= than) {
        await new Promise((r) => setTimeout(r, 5));
      }
    };
    await grown(before.length);
    const omps = await Promise.all(
      [1, 2, 3].map(async (k) => {
        await new Promise((r) => setTimeout(r, 200 * k));
        return await ompRoundtrip(path, `omp concurrent ${k} ✅`);
      }),
    );
    await grown((await Deno.stat(path)).size);
    await Deno.writeTextFile(stop, "stop\n");
    const { counts: [count = 0] } = await ours;
    await Deno.remove(stop);
    const after = await Deno.readFile(path);
    assert.deepEqual(after.subarray(0, before.length), before);
    const text = new TextDecoder().decode(after.subarray(before.length));
    assert.ok(text.endsWith("\n"));
    let mine = 0;
    const ompLines: string[] = [];
    const ompAt: number[] = [];
    let lastMine = leaf;
    for (const line of text.slice(0, -1).split("\n")) {
      const e = JSON.parse(line) as SessionEntry & {
        message: { content: unknown };
      };
      const c = e.message.content;
      if (typeof c === "string") {
        const { i } = JSON.parse(c) as { i: number };
        assert.equal(i, mine++, "our entries in order");
        assert.equal(e.parentId, lastMine);
        lastMine = e.id;
      } else {
        ompLines.push((c as { text: string }[])[0]!.text);
        ompAt.push(mine);
      }
    }
    assert.equal(mine, count, "none of ours lost");
    assert.ok(
      ompAt.some((at) => at > 0 && at < count),
      `omp appended while we did (after ${ompAt.join(", ")} of ours)`,
    );
    // omp fails closed when it cannot get the lock in 500 ms: such a
    // roundtrip appended nothing. Every one that reports an append is there.
    const appended = omps.filter((r) => typeof r.leafId === "string");
    assert.equal(ompLines.length, appended.length, JSON.stringify(omps));
    await using s = await Session.open(path, { window: false });
    assert.deepEqual(s.issues, []);
    console.log(
      `concurrency/omp at once: ${count} of ours + ${ompLines.length} of omp's (of 3 tried) lines whole, lost = 0; omp's lines fell after ${
        ompAt.join(", ")
      } of ours`,
    );
  },
});

if (!HAS_OMP) console.log(`concurrency/omp: skipped: ${NO_OMP}`);
