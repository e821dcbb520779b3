import { deepEqual, equal } from "node:assert/strict";
import { join } from "node:path";
import { searchSessions, SessionIndex } from "../../mod.ts";
import { sessionBytes, tempDir } from "../_session_files.ts";

/** Filler of `n` characters: words, escapes and CJK, as tool output has. */
function filler(n: number, seed: number): string {
  const words = ["alpha", "検索", "tab\there", 'quote"d', "line\nbreak", "é"];
  let s = "";
  for (let i = seed; s.length < n; i++) s += `${words[i % words.length]} `;
  return s.slice(0, n);
}

Deno.test("searchSessions() scanning finds needles across its 1 MiB reads, in long and CRLF lines, as the index does", async () => {
  await using dir = await tempDir();
  const folder = join(dir.path, "sessions", "--home-dev-app--");
  await Deno.mkdir(folder, { recursive: true });
  const lines: string[] = [];
  let parent: string | null = null;
  const tokens: string[] = [];
  for (let i = 0; i < 240; i++) {
    const id = (i + 1).toString(16).padStart(8, "0");
    const token = `tokq${i}z`;
    tokens.push(token);
    // Sizes that put tokens on both sides of every read boundary; every
    // 60th line longer than a read, its token within the 64 Ki characters
    // searched, and "tokcut" past them.
    const long = i % 60 === 59;
    const size = 2_000 + (i * 7919) % 30_000;
    const before = filler(i % 3 === 0 ? 0 : long ? 60_000 : size, i);
    const text = long
      ? `${before} ${token} ${filler(1_400_000, i)} tokcut`
      : `${before} ${token} end`;
    const entry = {
      type: "message",
      id,
      parentId: parent,
      timestamp: `2026-10-01T09:00:00.${String(i).padStart(3, "0")}Z`,
      message: { role: "user", content: text },
    };
    lines.push(JSON.stringify(entry) + (i % 5 === 0 ? "\r" : ""));
    parent = id;
  }
  lines.push(
    '{"type":"message","id":"ffffffff","parentId":null,"message":{"role":"user","content":"tokqtorn',
  );
  const bytes = sessionBytes(lines);
  await Deno.writeFile(
    join(folder, "big.jsonl"),
    bytes.subarray(0, bytes.length - 1),
  );
  (await SessionIndex.open(dir.path)).close();
  const scan = await searchSessions(dir.path, "tokq*", {
    index: false,
    limit: 1000,
  });
  const indexed = await searchSessions(dir.path, "tokq*", { limit: 1000 });
  equal(scan.hits.length, tokens.length);
  deepEqual(
    scan.hits.map((h) => h.snippet.match(/tokq\d+z/)?.[0]).sort(),
    [...tokens].sort(),
  );
  deepEqual(indexed.hits, scan.hits);
  equal(scan.hits.every((h) => h.onActivePath), true);
  for (const way of [{ index: false }, {}]) {
    equal((await searchSessions(dir.path, "tokcut", way)).hits.length, 0);
    equal((await searchSessions(dir.path, "tokqtorn", way)).hits.length, 0);
  }
  for (const token of ["tokq0z", "tokq59z", "tokq119z", "tokq239z"]) {
    const one = await searchSessions(dir.path, token, { index: false });
    equal(one.hits.length, 1, token);
  }
});
