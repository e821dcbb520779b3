/**
 * A call's fields, three ways, over the lines holding `"usage"` of a
 * generated 64 MB session (lines of ~1.5 KB): the naive way (decode the
 * line and `JSON.parse` it), the skeleton and the walk in JavaScript
 * (0.3.10), and the WebAssembly `fields` pass, then the values built from
 * its records (0.3.11). Each line is copied into the finder's buffer
 * first, as a pass reads it there; the copy is the same for all three.
 *
 *     deno bench -A bench/usage_fields_bench.ts
 *
 * @module
 */

import { join } from "node:path";
import { generateTranscript, parseSize } from "../src/gen/generate.ts";
import { findUsage, usageFinder } from "../src/store/usage/_finder.ts";
import { entryFields } from "../src/store/usage/_fields.ts";
import { recordedFields } from "../src/store/usage/_field_values.ts";
import { lineRequest } from "../src/store/usage/_line.ts";
import { requestUsage } from "../src/format/usage.ts";
import type { SessionEntry } from "../src/format/entries.ts";

const OUT = new URL("./out/", import.meta.url).pathname;
const file = join(OUT, "usage-fields-64MB.jsonl");

try {
  await Deno.stat(file);
} catch {
  await Deno.mkdir(OUT, { recursive: true });
  using out = await Deno.open(file, { write: true, create: true });
  await generateTranscript(out, { size: parseSize("64MB"), seed: 7 });
}

const lines = _callLines(await Deno.readFile(file));

/** The lines holding `"usage"`, each its own copy. */
function _callLines(bytes: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  let start = 0;
  for (let i = bytes.indexOf(10); i !== -1; i = bytes.indexOf(10, start)) {
    const line = bytes.subarray(start, i);
    if (findUsage(line, 0, line.length) !== -1) out.push(line.slice());
    start = i + 1;
  }
  return out;
}

const finder = usageFinder(2 << 20);
let sink = 0;
const group = `a call's fields, ${lines.length} lines`;

Deno.bench({
  name: "decode and JSON.parse each line (the naive way)",
  group,
  baseline: true,
  fn() {
    for (const line of lines) {
      finder.bytes.set(line);
      sink += lineRequest(finder.bytes.subarray(0, line.length), true)!.input;
    }
  },
});
Deno.bench({
  name: "its skeleton, walked in JavaScript (0.3.10)",
  group,
  fn() {
    for (const line of lines) {
      finder.bytes.set(line);
      const n = finder.skeleton(0, line.length);
      const fields = entryFields(finder.out, 0, n) as SessionEntry;
      sink += requestUsage(fields)!.input;
    }
  },
});
Deno.bench({
  name: "the WebAssembly fields pass, then the values built (0.3.11)",
  group,
  fn() {
    for (const line of lines) {
      finder.bytes.set(line);
      const count = finder.fields(0, line.length);
      const fields = recordedFields(finder.memory, finder.records, count);
      sink += requestUsage(fields as SessionEntry)!.input;
    }
  },
});

addEventListener("unload", () => {
  if (sink === 0) console.log("no call read");
});
