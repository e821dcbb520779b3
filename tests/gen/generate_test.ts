import assert from "node:assert/strict";
import {
  generateBytes,
  generateFile,
  type GenerateOptions,
  type GenerateResult,
  generateTranscript,
  parseSize,
} from "../../src/gen/generate.ts";
import { encodeEntry, type SessionEntry } from "../../src/format/entries.ts";
import {
  parseTitleSlot,
  TITLE_SLOT_BYTES,
} from "../../src/format/title_slot.ts";

const KIB = 1024;
const MIB = 1024 * 1024;
/** Small compaction spacing so test files stay small but hold several. */
const SMALL: GenerateOptions = {
  size: 2 * MIB,
  compactionEvery: 300 * KIB,
  lastCompactionBeforeEnd: 300 * KIB,
};
const decoder = new TextDecoder("utf-8", { fatal: true });

/** Generate into memory through a sink that keeps the chunks. */
async function generate(
  options: GenerateOptions,
): Promise<{ bytes: Uint8Array; result: GenerateResult; chunks: number[] }> {
  const chunks: Uint8Array[] = [];
  const sink = {
    write(chunk: Uint8Array): Promise<number> {
      chunks.push(chunk);
      return Promise.resolve(chunk.length);
    },
  };
  const result = await generateTranscript(sink, options);
  return { bytes: concat(chunks), result, chunks: chunks.map((c) => c.length) };
}

function concat(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

interface Line {
  /** The line's bytes without its "\n". */
  raw: Uint8Array;
  text: string;
  offset: number;
}

/** Split on "\n" only (U+2028 is not a line break here); the file must end with one. */
function splitLines(bytes: Uint8Array): Line[] {
  assert.equal(bytes[bytes.length - 1], 0x0a, "the file ends with a newline");
  const lines: Line[] = [];
  let start = 0;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] !== 0x0a) continue;
    const raw = bytes.subarray(start, i);
    lines.push({ raw, text: decoder.decode(raw), offset: start });
    start = i + 1;
  }
  return lines;
}

/** The entries (lines 3…), parsed, with their line. */
function entriesOf(lines: Line[]): { entry: SessionEntry; line: Line }[] {
  return lines.slice(2).map((line) => ({
    entry: JSON.parse(line.text) as SessionEntry,
    line,
  }));
}

type Json = Record<string, unknown>;
const messageOf = (entry: SessionEntry): Json =>
  (entry as Json).message as Json;

Deno.test("parseSize() reads byte counts with binary units", async (t) => {
  const cases: [string, number][] = [
    ["0", 0],
    ["4096", 4096],
    ["512K", 512 * KIB],
    ["512k", 512 * KIB],
    ["100M", 100 * MIB],
    ["10MB", 10 * MIB],
    ["10 MiB", 10 * MIB],
    ["1G", 1024 * MIB],
    ["1.5G", 1536 * MIB],
    ["1.3K", 1331],
    [".5M", 512 * KIB],
    ["2T", 2 * 1024 ** 4],
    ["100B", 100],
    [" 7m ", 7 * MIB],
  ];
  for (const [text, bytes] of cases) {
    await t.step(`"${text}" is ${bytes}`, () => {
      assert.equal(parseSize(text), bytes);
    });
  }
});

Deno.test("parseSize() throws RangeError for nonsense", async (t) => {
  for (
    const text of [
      "",
      " ",
      "M",
      "-1",
      "-1M",
      "1X",
      "1MBB",
      "1 2M",
      "1e6",
      "0x10",
      "1.5",
      "1.5B",
      "NaN",
      "Infinity",
      "1,000",
      "99999999999999999999",
      "9000000T",
    ]
  ) {
    await t.step(JSON.stringify(text), () => {
      assert.throws(() => parseSize(text), RangeError);
    });
  }
  await t.step("a non-string is a TypeError", () => {
    assert.throws(() => parseSize(100 as unknown as string), TypeError);
  });
});

Deno.test("generateTranscript() gives the same bytes for the same seed", async () => {
  const a = await generate({ ...SMALL, seed: 1 });
  const b = await generate({ ...SMALL, seed: 1 });
  const c = await generate({ ...SMALL, seed: 2 });
  assert.deepEqual(a.result, b.result);
  assert.ok(a.bytes.length === b.bytes.length);
  assert.deepEqual(a.bytes, b.bytes);
  assert.notDeepEqual(a.bytes.subarray(0, 4096), c.bytes.subarray(0, 4096));
  assert.notEqual(a.result.leafId, c.result.leafId);
  // The default seed is 1.
  const d = await generate(SMALL);
  assert.deepEqual(d.bytes, a.bytes);
});

Deno.test("generateBytes() gives the bytes generateTranscript() writes", async () => {
  const { bytes } = await generate({ size: 16 * KIB, seed: 1 });
  assert.deepEqual(await generateBytes({ size: 16 * KIB, seed: 1 }), bytes);
  const lines = new TextDecoder().decode(bytes).trimEnd().split("\n");
  assert.equal(JSON.parse(lines[1]!).type, "session");
});

Deno.test("generateTranscript() writes a well-formed omp session", async (t) => {
  const { bytes, result, chunks } = await generate({ ...SMALL, seed: 3 });
  const lines = splitLines(bytes);
  const entries = entriesOf(lines);

  await t.step("line 1 is a 256-byte auto title slot", () => {
    assert.equal(lines[0]!.raw.length + 1, TITLE_SLOT_BYTES);
    const slot = parseTitleSlot(lines[0]!.text);
    assert.ok(slot?.ok);
    assert.equal(slot.slot.source, "auto");
    assert.ok(slot.slot.title.length > 0);
    const titleChange = entries.find((e) => e.entry.type === "title_change");
    assert.equal((titleChange?.entry as Json).title, slot.slot.title);
    assert.equal(titleChange?.entry.timestamp, slot.slot.updatedAt);
  });

  await t.step("line 2 is a version 3 header with a UUIDv7 id", () => {
    const header = JSON.parse(lines[1]!.text);
    assert.deepEqual(Object.keys(header), [
      "type",
      "version",
      "id",
      "timestamp",
      "cwd",
    ]);
    assert.equal(header.type, "session");
    assert.equal(header.version, 3);
    assert.match(
      header.id,
      /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    assert.equal(header.cwd, "/home/dev/src/app");
    assert.equal(new Date(header.timestamp).toISOString(), header.timestamp);
  });

  await t.step(
    "entries: envelope first, unique ids, one chain, time moves on",
    () => {
      const seen = new Set<string>();
      let previous: SessionEntry | undefined;
      for (const { entry } of entries) {
        assert.deepEqual(Object.keys(entry).slice(0, 4), [
          "type",
          "id",
          "parentId",
          "timestamp",
        ]);
        assert.match(entry.id, /^[0-9a-f]{8}$/);
        assert.ok(!seen.has(entry.id), `id ${entry.id} is unique`);
        if (previous === undefined) {
          assert.equal(entry.parentId, null);
        } else {
          assert.equal(entry.parentId, previous.id, "a single parent chain");
          assert.ok(
            entry.timestamp > previous.timestamp,
            "timestamps increase",
          );
        }
        assert.equal(new Date(entry.timestamp).toISOString(), entry.timestamp);
        seen.add(entry.id);
        previous = entry;
      }
    },
  );

  await t.step("every line is what encodeEntry writes for it", () => {
    for (const { entry, line } of entries) {
      assert.equal(encodeEntry(entry), line.text);
    }
  });

  await t.step("the result matches the file", () => {
    assert.equal(result.bytes, bytes.length);
    assert.equal(result.entries, lines.length - 2);
    const count = (type: string): number =>
      entries.filter((e) => e.entry.type === type).length;
    assert.equal(result.compactions, count("compaction"));
    assert.equal(result.resets, count("reset_boundary"));
    assert.ok(result.compactions >= 4, `${result.compactions} compactions`);
    assert.equal(result.resets, 2);
    const lastCompaction = entries.findLast((e) =>
      e.entry.type === "compaction"
    );
    assert.equal(result.lastCompactionOffset, lastCompaction?.line.offset);
    assert.equal(result.leafId, entries.at(-1)!.entry.id);
  });

  await t.step(
    "the file ends at the first entry boundary at or past the size",
    () => {
      assert.ok(bytes.length >= SMALL.size);
      const last = lines.at(-1)!;
      assert.ok(
        last.offset < SMALL.size,
        "the last line starts before the target",
      );
    },
  );

  await t.step("chunks are at most 1 MiB", () => {
    assert.ok(chunks.length >= 2);
    for (const n of chunks) assert.ok(n > 0 && n <= MIB);
  });
});

Deno.test("generateTranscript() writes realistic messages", async (t) => {
  const { bytes } = await generate({ ...SMALL, seed: 1 });
  const lines = splitLines(bytes);
  const entries = entriesOf(lines);

  await t.step(
    "every assistant turn has a usage with a cost, matching the model",
    () => {
      let model: string | undefined;
      let assistants = 0;
      const providers = new Set<string>();
      for (const { entry } of entries) {
        if (entry.type === "model_change") {
          model = (entry as Json)
            .model as string;
        }
        if (entry.type !== "message") continue;
        const message = messageOf(entry);
        if (message.role !== "assistant") continue;
        assistants++;
        const usage = message.usage as Json;
        const cost = usage.cost as Json;
        assert.equal(typeof cost, "object");
        for (
          const key of ["input", "output", "cacheRead", "cacheWrite", "total"]
        ) {
          assert.equal(typeof cost[key], "number", key);
        }
        assert.equal(model, `${message.provider}/${message.model}`);
        assert.equal(
          message.api,
          message.provider === "anthropic"
            ? "anthropic-messages"
            : "openai-responses",
        );
        assert.ok(["stop", "toolUse"].includes(message.stopReason as string));
        providers.add(message.provider as string);
      }
      assert.ok(assistants > 50);
      assert.deepEqual([...providers].sort(), ["anthropic", "openai"]);
    },
  );

  await t.step("tool calls are answered by results of 1–200 KB", () => {
    const open = new Map<string, string>();
    let outputs = 0;
    for (const { entry } of entries) {
      if (entry.type !== "message") continue;
      const message = messageOf(entry);
      const content = message.content as Json[];
      if (message.role === "assistant") {
        assert.equal(open.size, 0, "results come before the next turn");
        for (const block of content) {
          if (block.type === "thinking") {
            assert.equal(typeof block.thinkingSignature, "string");
          }
          if (block.type === "toolCall") {
            open.set(block.id as string, block.name as string);
          }
        }
        assert.equal(message.stopReason, open.size > 0 ? "toolUse" : "stop");
      } else if (message.role === "toolResult") {
        assert.equal(open.get(message.toolCallId as string), message.toolName);
        open.delete(message.toolCallId as string);
        if (message.isError) continue;
        const text = content[0]!.text as string;
        const size = new TextEncoder().encode(text).length;
        assert.ok(size >= 1000 && size <= 200 * KIB, `${size} bytes`);
        outputs++;
      }
    }
    assert.ok(outputs > 20);
  });

  await t.step(
    "most lines hold non-ASCII text, some 4-byte emoji and U+2028",
    () => {
      const nonAscii = lines.filter((l) => l.raw.some((b) => b > 0x7f)).length;
      const share = nonAscii / lines.length;
      assert.ok(share > 0.88 && share < 0.99, `non-ASCII share ${share}`);
      assert.ok(
        lines.some((l) => l.raw.some((b) => b >= 0xf0)),
        "4-byte UTF-8",
      );
      assert.ok(lines.some((l) => l.text.includes("\u2028")), "a raw U+2028");
    },
  );

  await t.step(
    "compactions keep a few entries before them, on the chain",
    () => {
      const index = new Map(entries.map((e, i) => [e.entry.id, i]));
      for (const [i, { entry }] of entries.entries()) {
        if (entry.type !== "compaction") continue;
        const c = entry as Json;
        assert.equal(typeof c.summary, "string");
        assert.equal(typeof c.shortSummary, "string");
        assert.equal(typeof c.tokensBefore, "number");
        const kept = index.get(c.firstKeptEntryId as string);
        assert.ok(
          kept !== undefined && kept < i && kept >= i - 40,
          `kept ${kept} for ${i}`,
        );
      }
    },
  );
});

Deno.test("generateTranscript() puts the last compaction lastCompactionBeforeEnd from the end", async (t) => {
  // Measured from the target size: the file runs past it by up to a line,
  // and the compaction waits for the end of a tool round.
  await t.step("small spacing", async () => {
    const { result } = await generate({ ...SMALL, size: 3 * MIB });
    const before = 3 * MIB - result.lastCompactionOffset;
    assert.ok(before <= 300 * KIB && before > 100 * KIB, `${before} bytes`);
  });
  await t.step(
    "defaults: 3.5 MiB before the end, a compaction every 5 MiB",
    async () => {
      const { bytes, result } = await generate({
        size: 12 * MIB,
        resetsAt: [],
      });
      const before = 12 * MIB - result.lastCompactionOffset;
      assert.ok(before <= 3.5 * MIB && before > 3 * MIB, `${before} bytes`);
      assert.equal(result.compactions, 2);
      assert.equal(result.resets, 0);
      assert.equal(bytes.length, result.bytes);
    },
  );
  await t.step(
    "a file no larger than the distance has no compaction",
    async () => {
      const { result } = await generate({ size: 1 * MIB });
      assert.equal(result.compactions, 0);
      assert.equal(result.lastCompactionOffset, -1);
    },
  );
});

Deno.test("generateTranscript() branches back before the last compaction on request", async () => {
  const { bytes, result } = await generate({ ...SMALL, branchBackAtEnd: true });
  const entries = entriesOf(splitLines(bytes));
  const index = new Map(entries.map((e, i) => [e.entry.id, i]));
  const branches = entries.filter((e) => e.entry.type === "branch_summary");
  assert.equal(branches.length, 1);
  const branch = branches[0]!.entry as Json;
  const at = index.get(branch.id as string)!;
  const parent = index.get(branch.parentId as string)!;
  assert.equal(branch.fromId, branch.parentId);
  assert.ok(
    parent < index.get(
      entries.findLast((e) => e.entry.type === "compaction")!.entry.id,
    )!,
  );
  assert.equal(
    entries[parent]!.line.offset < result.lastCompactionOffset,
    true,
  );
  // The leaf's path runs through the branch summary.
  let id: string | null = result.leafId;
  const path: string[] = [];
  while (id !== null) {
    path.push(id);
    id = entries[index.get(id)!]!.entry.parentId;
  }
  assert.ok(path.includes(branch.id as string));
  assert.ok(entries.length - 1 - at >= 3, "a few entries under the branch");
  // Without the option there is none.
  const plain = entriesOf(splitLines((await generate(SMALL)).bytes));
  assert.ok(!plain.some((e) => e.entry.type === "branch_summary"));
});

Deno.test("generateTranscript() writes the same bytes to a writer that takes short counts", async () => {
  const { bytes } = await generate({ ...SMALL, size: 1 * MIB });
  const chunks: Uint8Array[] = [];
  const writer = {
    write(p: Uint8Array): Promise<number> {
      const n = Math.min(p.length, 100_000);
      chunks.push(p.subarray(0, n)); // the part taken; the rest comes again
      return Promise.resolve(n);
    },
  };
  const result = await generateTranscript(writer, { ...SMALL, size: 1 * MIB });
  assert.equal(result.bytes, bytes.length);
  assert.deepEqual(concat(chunks), bytes);
});

Deno.test("generateTranscript() reports progress up to the end", async () => {
  const calls: [number, number][] = [];
  const { result } = await generate({
    ...SMALL,
    onProgress: (written, total) => calls.push([written, total]),
  });
  assert.ok(calls.length >= 2);
  for (let i = 1; i < calls.length; i++) {
    assert.ok(calls[i]![0] > calls[i - 1]![0]);
  }
  assert.ok(calls.every(([, total]) => total === SMALL.size));
  assert.equal(calls.at(-1)![0], result.bytes);
});

Deno.test("generateTranscript() rejects when the sink fails", async () => {
  const failing = { write: () => Promise.reject(new Error("disk full")) };
  await assert.rejects(
    generateTranscript(failing, { size: 3 * MIB }),
    /disk full/,
  );
  const zero = { write: () => Promise.resolve(0) };
  await assert.rejects(
    generateTranscript(zero, { size: 3 * MIB }),
    /accepted 0 bytes/,
  );
});

Deno.test("generateTranscript() checks its options", async (t) => {
  const sink = { write: (p: Uint8Array) => Promise.resolve(p.length) };
  const bad: [Json, ErrorConstructor][] = [
    [{ size: -1 }, RangeError],
    [{ size: Infinity }, RangeError],
    [{ size: "1M" }, TypeError],
    [{ size: 10, compactionEvery: 0 }, RangeError],
    [{ size: 10, resetsAt: [1.5] }, RangeError],
    [{ size: 10, resetsAt: 0.3 }, TypeError],
    [{ size: 10, lastCompactionBeforeEnd: -5 }, RangeError],
    [{ size: 10, seed: "x" }, TypeError],
  ];
  for (const [options, type] of bad) {
    await t.step(JSON.stringify(options), async () => {
      await assert.rejects(
        generateTranscript(sink, options as unknown as GenerateOptions),
        type,
      );
    });
  }
  await t.step("size 0 still writes a loadable file", async () => {
    const { bytes, result } = await generate({ size: 0 });
    const lines = splitLines(bytes);
    assert.equal(lines.length, 3);
    assert.equal(result.entries, 1);
  });
});

Deno.test("generateFile() creates or truncates the file with mode 0600", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/gen.jsonl`;
    await Deno.writeFile(path, new Uint8Array(3 * MIB).fill(0x41), {
      mode: 0o644,
    });
    if (Deno.build.os !== "windows") await Deno.chmod(path, 0o644);
    const result = await generateFile(path, { ...SMALL, size: 1 * MIB });
    const stat = await Deno.stat(path);
    assert.equal(stat.size, result.bytes);
    if (Deno.build.os !== "windows") assert.equal(stat.mode! & 0o777, 0o600);
    const { bytes } = await generate({ ...SMALL, size: 1 * MIB });
    assert.deepEqual(await Deno.readFile(path), bytes);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
