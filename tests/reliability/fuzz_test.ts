/**
 * Property tests over random mutations of the real fixtures (see
 * `_fuzz_cases.ts`): a CI-sized run. Long runs: `deno run -A tools/fuzz.ts
 * 200000`. The seed is random unless `XDEV_FUZZ_SEED` is set, and printed.
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { Session } from "../../mod.ts";
import {
  assistant,
  sessionBytes,
  T0,
  tempDir,
  user,
} from "../_session_files.ts";
import {
  applyCase,
  canonical,
  CaseRunner,
  describeFailure,
  type Fixture,
  headerIntact,
  loadCorpus,
  mutate,
  runFuzz,
} from "../_fuzz_cases.ts";

/** Cases per run in CI; two runs in parallel, one per core. */
const CASES = 1_000;

const fixtures: Fixture[] = await loadCorpus();

Deno.test("fuzz cases: every mutation kind changes the bytes it is given and keeps the header check honest", () => {
  const f = fixtures.find((x) => x.name === "omp/s1-main.jsonl")!;
  assert.ok(headerIntact(f, f.bytes));
  assert.ok(!headerIntact(f, f.bytes.subarray(0, f.headerEnd - 1)));
  const flippedHeader = mutate(f.bytes, {
    kind: "flip",
    at: f.slotEnd + 3,
    xor: 1,
  });
  assert.ok(!headerIntact(f, flippedHeader));
  const flippedSlot = mutate(f.bytes, { kind: "flip", at: 5, xor: 1 });
  assert.ok(
    headerIntact(f, flippedSlot),
    "a damaged slot leaves the header intact",
  );
  const cycle = applyCase(fixtures, {
    fixture: fixtures.indexOf(f),
    mutations: [{ kind: "cycle", a: 4, b: 9 }],
    search: false,
    append: false,
    walk: {},
  });
  assert.notDeepEqual(cycle, f.bytes);
  const pi = fixtures.find((x) => x.name.startsWith("pi/"))!;
  assert.equal(pi.slotEnd, 0, "the legacy file has no slot");
});

Deno.test("fuzz harness: the watchdogs see a path outside the temp dir and a case that never ends", async (t) => {
  const runner = new CaseRunner();
  const bytes = fixtures[0]!.bytes;
  try {
    await t.step("a clean case holds", async () => {
      const r = await runner.run(bytes, false, 20_000);
      assert.equal(r.failure, undefined);
      assert.ok(r.touched > 0, "paths are recorded");
    });
    await t.step("a path outside the temp dir fails the case", async () => {
      const r = await runner.run(bytes, false, 20_000, {
        probe: { touch: "/etc/hostname" },
      });
      assert.match(r.failure ?? "", /outside the temp dir: \/etc\/hostname/);
    });
    await t.step(
      "a case past its timeout fails, and the next case runs in a new worker",
      async () => {
        const r = await runner.run(bytes, false, 1_000, {
          probe: { hang: true },
        });
        assert.match(r.failure ?? "", /timeout/);
        const next = await runner.run(bytes, false, 20_000);
        assert.equal(next.failure, undefined);
      },
    );
  } finally {
    await runner.close();
  }
});

Deno.test("Session.open() and Session.fromStream() on mutated fixtures: only SessionSyntaxError for a damaged header, no hang, no file outside the temp dir", async () => {
  const seed = Number(Deno.env.get("XDEV_FUZZ_SEED") ?? Date.now() % 2 ** 31);
  const started = performance.now();
  const runs = await Promise.all(
    [0, 1].map((k) => runFuzz(fixtures, { numRuns: CASES, seed: seed + k })),
  );
  const ms = Math.round(performance.now() - started);
  for (const { details } of runs) {
    if (details.failed) assert.fail(describeFailure(fixtures, details));
  }
  const sum = (f: (s: (typeof runs)[0]["stats"]) => number) =>
    runs.reduce((n, r) => n + f(r.stats), 0);
  const kinds: Record<string, number> = {};
  for (const r of runs) {
    for (const [k, n] of Object.entries(r.stats.kinds)) {
      kinds[k] = (kinds[k] ?? 0) + n;
    }
  }
  const cases = sum((s) => s.cases);
  console.log(
    `fuzz: ${cases} cases (seeds ${seed}, ${seed + 1}) in ${ms} ms: ${
      sum((s) => s.loads)
    } loads, ${sum((s) => s.entries)} entries kept, ${
      sum((s) => s.issues)
    } issues reported, ${
      sum((s) => s.syntaxErrors)
    } cases with a damaged header refused with SessionSyntaxError, ${
      sum((s) => s.touched)
    } paths touched (0 outside the temp dir), ${
      sum((s) => s.appends)
    } damaged files appended to and reopened, ${
      sum((s) => s.crossed)
    } with usage and searches alike from the files and through an index, 0 hangs, 0 other throws; windowed ≠ full context in ${
      sum((s) => s.windowDiffers)
    } cases, messages included in ${
      sum((s) => s.windowDuplicateDiffers)
    } (each a failure)`,
  );
  console.log(`fuzz: mutations ${JSON.stringify(kinds)}`);
  const walks: Record<string, number> = {};
  for (const r of runs) {
    for (const [k, n] of Object.entries(r.stats.walks)) {
      walks[k] = (walks[k] ?? 0) + n;
    }
  }
  console.log(`fuzz: backward walks ${JSON.stringify(walks)}`);
  assert.ok(cases >= 2_000);
});

/*
 * Found by this fuzzer (the "windowed ≠ full" count above). Past the window
 * the backward walk follows the active path by each line's envelope without
 * parsing the line, so it walks through an entry line that is damaged after
 * its envelope. The full read now does the same (decodeEntryLine): a
 * complete line that is not JSON but starts with an intact envelope and ends
 * in "}" keeps its place in the tree as a damaged entry, so the history
 * before it stays on the path. omp drops such a line and cuts the path there
 * (its context of this file has the active path [3, 4, 5] and thinking level
 * "off"); we keep the history (README, "Compatibility with omp").
 */
Deno.test({
  name:
    "Session.open() windowed and { window: false } agree when a line on the path before the window is damaged after its envelope",

  fn: async () => {
    await using dir = await tempDir();
    const path = join(dir.path, "s.jsonl");
    const damaged = JSON.stringify(user("00000002", "00000001", "question"))
      .replace('"timestamp"', '"x":\u0001garbage,"timestamp"');
    await Deno.writeFile(
      path,
      sessionBytes([
        {
          type: "thinking_level_change",
          id: "00000001",
          parentId: null,
          timestamp: T0,
          thinkingLevel: "high",
          configured: "high",
        },
        damaged,
        assistant("00000003", "00000002", "answer"),
        {
          type: "reset_boundary",
          id: "00000004",
          parentId: "00000003",
          timestamp: T0,
        },
        user("00000005", "00000004", "after"),
      ]),
    );
    await using full = await Session.open(path, { window: false });
    await using windowed = await Session.open(path);
    const f = full.buildContext();
    assert.equal(f.thinkingLevel, "high"); // the path goes on past the damage
    assert.equal(f.pathEnd, "root");
    assert.deepEqual(f.activePath.map((e) => e.id), [
      "00000001",
      "00000002",
      "00000003",
      "00000004",
      "00000005",
    ]);
    assert.deepEqual(full.issues.map((i) => i.kind), ["damaged-entry"]);
    assert.equal(canonical(windowed.buildContext()), canonical(f));
  },
});

/*
 * Found by this fuzzer (tools/fuzz.ts 20000 --seed 20261130 --jobs 1: a
 * duplicated line whose copy got another parent). With two entries of one
 * id, the full read keeps the later one ("the later entry wins", as omp:
 * its context of this file starts "a later entry with the same id"). The
 * backward walk passes the later one before it wants that id: it remembers
 * every id it passed, and a wanted id among them sends it to the full read.
 */
Deno.test({
  name:
    "Session.open() windowed and { window: false } agree on a file where a later entry repeats an id",

  fn: async () => {
    await using dir = await tempDir();
    const path = join(dir.path, "s.jsonl");
    await Deno.writeFile(
      path,
      sessionBytes([
        user("00000001", null, "first"),
        assistant("00000002", "00000001", "answer"),
        user("00000001", null, "a later entry with the same id"),
        user("00000003", "00000002", "next"),
      ]),
    );
    await using full = await Session.open(path, { window: false });
    await using windowed = await Session.open(path);
    const f = full.buildContext();
    const text = (m: unknown) =>
      ((m as { content: { text: string }[] }).content[0]!).text;
    assert.deepEqual(f.messages.map(text), [
      "a later entry with the same id",
      "answer",
      "next",
    ]);
    assert.deepEqual(full.issues.map((i) => i.kind), ["duplicate-id"]);
    assert.deepEqual(
      windowed.buildContext().messages.map(text),
      f.messages.map(text),
    );
    assert.deepEqual(windowed.issues.map((i) => i.kind), ["duplicate-id"]);
  },
});
