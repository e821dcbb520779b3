/**
 * A cold build of the session index over one transcript: how long the
 * refresh takes and how big the index file ends up, table by table.
 *
 *     deno run -A bench/index_build.ts <file.jsonl> [--facets search,totals] [--work DIR]
 *
 * The file is hard-linked into a data dir of its own (`--work`, default a
 * folder of `bench/out/`), whose index is deleted first. `--facets` keeps
 * only the facets named (to see what each costs); the schema is the same.
 * Prints one JSON line: wall and CPU time (the CPU time says more on a
 * busy machine), the index's size and its largest tables.
 *
 * @module
 */

import { DatabaseSync } from "node:sqlite";
import { basename, join } from "node:path";
import { cpuUsage } from "node:process";
import { FACETS } from "../src/index/_facet_list.ts";
import type { IndexFacet } from "../src/index/_facets.ts";
import { SessionIndex } from "../src/index/session_index.ts";
import { OUT_DIR } from "./_files.ts";

const MB = 1e6;

function _arg(name: string): string | undefined {
  const i = Deno.args.indexOf(name);
  return i < 0 ? undefined : Deno.args[i + 1];
}

const file = Deno.args[0];
if (file === undefined || file.startsWith("--")) {
  console.error("usage: index_build.ts <file.jsonl> [--facets a,b] [--work D]");
  Deno.exit(2);
}
const only = _arg("--facets")?.split(",");
if (only !== undefined) {
  // A bench-only narrowing of the module's list (a plain array underneath).
  const keep = FACETS.filter((f) => only.includes(f.name));
  (FACETS as IndexFacet[]).splice(0, FACETS.length, ...keep);
}
const dataDir = _arg("--work") ??
  join(OUT_DIR, `index-build-${basename(file).replace(/\.jsonl$/, "")}`);
const link = join(dataDir, "sessions", "-bench", basename(file));
await Deno.mkdir(join(link, ".."), { recursive: true });
const [a, b] = await Promise.all([
  Deno.stat(file),
  Deno.stat(link).catch(() => undefined),
]);
if (b?.ino !== a.ino) {
  await Deno.remove(link).catch(() => {});
  await Deno.link(file, link);
}
const indexFile = join(dataDir, "index.sqlite");
for (const suffix of ["", "-wal", "-shm"]) {
  await Deno.remove(indexFile + suffix).catch(() => {});
}

const started = performance.now();
const cpu = cpuUsage();
{
  using index = await SessionIndex.open(dataDir);
  await index.refresh();
}
const ms = Math.round(performance.now() - started);
const { user, system } = cpuUsage(cpu);

const db = new DatabaseSync(indexFile);
const tables: Record<string, number> = {};
try {
  for (
    const r of db.prepare(
      "SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC",
    ).all() as { name: string; bytes: number }[]
  ) {
    if (r.bytes >= 0.05 * MB) tables[r.name] = +(r.bytes / MB).toFixed(1);
  }
} finally {
  db.close();
}
console.log(JSON.stringify({
  file: basename(file),
  fileMB: +(a.size / MB).toFixed(1),
  facets: FACETS.map((f) => f.name),
  ms,
  cpuMs: Math.round((user + system) / 1000),
  indexMB: +((await Deno.stat(indexFile)).size / MB).toFixed(1),
  tables,
}));
