import { deepStrictEqual, rejects } from "node:assert/strict";
import { join } from "node:path";
import { scanBlobRefs } from "../../src/store/_blob_refs.ts";
import { READ_BYTES } from "../../src/read/lines.ts";
import { tempDir } from "../_session_files.ts";

const A = "a".repeat(64);
const B = "b".repeat(64);
const C = "c".repeat(64);
const D = "d".repeat(64);

async function refsOf(
  text: string | Uint8Array,
  options: { maxLineBytes?: number } = {},
): Promise<string[]> {
  await using dir = await tempDir();
  const file = join(dir.path, "s.jsonl");
  if (typeof text === "string") await Deno.writeTextFile(file, text);
  else await Deno.writeFile(file, text);
  const found = new Set<string>();
  await scanBlobRefs(file, found, options);
  return [...found].sort();
}

async function gzip(text: string): Promise<Uint8Array> {
  const stream = new Blob([text]).stream().pipeThrough(
    new CompressionStream("gzip"),
  );
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

Deno.test("scanBlobRefs() finds a reference split across two reads and in a torn line", async () => {
  const pad = "x".repeat(READ_BYTES - 20);
  deepStrictEqual(
    await refsOf(`${pad}blob:sha256:${A}\n{"torn":"blob:sha256:${B}`),
    [A, B],
  );
});

Deno.test("scanBlobRefs() reads what the JSON means: \\u escapes anywhere in a reference", async () => {
  const lines = [
    // the first digit escaped (\u0061 is "a"), in a value
    `{"data":"blob:sha256:\\u0061${"a".repeat(63)}"}`,
    // the prefix escaped, in a member name, deep in arrays
    `{"x":[[{"\\u0062lob:sha256:${B}":1}]]}`,
    // a glued line (two objects): the first, as the loader keeps it
    `{"d":"blob:sha256:${"c".repeat(63)}\\u0063"}{"e":1}`,
  ];
  deepStrictEqual(await refsOf(lines.join("\n") + "\n"), [A, B, C]);
});

Deno.test("scanBlobRefs() counts an escaped backslash as no escape", async () => {
  // `\\u0061...` is a backslash, then the text "u0061...": no reference.
  deepStrictEqual(
    await refsOf(`{"d":"blob:sha256:\\\\u0061${"a".repeat(63)}"}\n`),
    [],
  );
});

Deno.test("scanBlobRefs() keeps omp's raw-text rule: any case, NUL-led and unparsable lines", async () => {
  const text = `{"d":"BLOB:SHA256:${A.toUpperCase()}"}\n` +
    `\0\0\0{"d":"blob:sha256:${B}"}\n` +
    `not json blob:sha256:${C}\n`;
  deepStrictEqual(await refsOf(text), [A, B, C]);
});

Deno.test("scanBlobRefs() reads a gzip file (omp's archive), known by its bytes", async () => {
  const text = `{"d":"blob:sha256:${A}"}\n{"d":"blob:sha256:\\u0062${
    "b".repeat(63)
  }"}\n`;
  deepStrictEqual(await refsOf(await gzip(text)), [A, B]);
});

Deno.test("scanBlobRefs() refuses a gzip file it cannot read whole", async () => {
  const gz = await gzip(`{"d":"blob:sha256:${A}"}\n`.repeat(1000));
  await rejects(refsOf(gz.subarray(0, gz.length - 20)), /\(gzip\)/);
});

Deno.test("scanBlobRefs() refuses a line too long to decode rather than miss what it names", async () => {
  const long = `{"d":"blob:sha256:\\u0064${"d".repeat(63)}","pad":"${
    "x".repeat(4000)
  }"}\n`;
  deepStrictEqual(await refsOf(long), [D]);
  await rejects(
    refsOf(`{"ok":1}\n${long}`, { maxLineBytes: 1000 }),
    /line 2 is 4\d\d\d bytes, more than the 1000 gc decodes/,
  );
});

Deno.test("scanBlobRefs() walks deeply nested values without overflowing", async () => {
  const depth = 5000;
  const text = `${"[".repeat(depth)}"blob:sha256:\\u0061${"a".repeat(63)}"${
    "]".repeat(depth)
  }\n`;
  deepStrictEqual(await refsOf(text), [A]);
});
