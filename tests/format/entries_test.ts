import { equal } from "node:assert/strict";
import { Session } from "../../mod.ts";
import { asEntry, encodeEntry } from "../../src/format/entries.ts";

const DIRS = ["../../fixtures/omp/", "../../fixtures/xdev/"].map((d) =>
  new URL(d, import.meta.url)
);

async function* sessionFiles(): AsyncGenerator<URL> {
  for (const dir of DIRS) {
    for await (const e of Deno.readDir(dir)) {
      if (e.name.endsWith(".jsonl")) yield new URL(e.name, dir);
    }
  }
}

Deno.test("encodeEntry() gives back the exact bytes of every unchanged fixture line", async () => {
  let lines = 0;
  for await (const file of sessionFiles()) {
    const text = await Deno.readTextFile(file);
    for (const line of text.split("\n").slice(2)) {
      if (line === "") continue;
      const checked = asEntry(JSON.parse(line));
      if ("reason" in checked) throw new Error(`${file}: ${checked.reason}`);
      equal(encodeEntry(checked.entry), line);
      lines++;
    }
  }
  equal(lines > 350, true);
});

Deno.test("Session.buildContext() leaves the loaded entries as on disk (blobs resolved in copies)", async () => {
  for await (const file of sessionFiles()) {
    await using session = await Session.open(file.pathname, { window: false });
    session.buildContext();
    const lines = (await Deno.readTextFile(file)).split("\n").slice(2).filter((
      l,
    ) => l !== "");
    equal(session.entries.length, lines.length);
    session.entries.forEach((e, i) => equal(encodeEntry(e), lines[i]));
  }
});
