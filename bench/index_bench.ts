/**
 * The session index against going without it, in the same run (issue 12):
 * - a list of 10,000 sessions from a warm index (`SessionIndex.list`)
 *   against `listSessions` (the first 4 KiB of every file); target ≥ 20×;
 * - a refresh after one of those files changed against a cold build of
 *   the index; target ≤ 5 %.
 *
 *     deno task bench bench/index_bench.ts
 *
 * The 10,000 sessions are made once in `bench/out/index-10k/` (real
 * generated transcripts, 280 MB in all, each its own id and title).
 *
 * @module
 */

import { join } from "node:path";
import { listSessions } from "../src/store/list.ts";
import { SessionIndex } from "../src/index/session_index.ts";
import { generateBytes } from "../src/gen/generate.ts";
import { readdirAndStat } from "./_files.ts";

const SESSIONS = 10_000;
const root = new URL("./out/index-10k/", import.meta.url).pathname;
const sessions = join(root, "sessions");

/** Make the data dir once: 100 cwd folders of 100 sessions. */
async function prepare(): Promise<void> {
  const marker = join(root, ".complete");
  if (await Deno.stat(marker).then(() => true, () => false)) return;
  await Deno.remove(root, { recursive: true }).catch(() => {});
  const bytes: Uint8Array[] = [];
  for (let seed = 1; seed <= 20; seed++) {
    bytes.push(await generateBytes({ size: 8 * 1024, seed }));
  }
  for (let i = 0; i < SESSIONS; i++) {
    const dir = join(sessions, `-work-project-${Math.floor(i / 100)}`);
    if (i % 100 === 0) await Deno.mkdir(dir, { recursive: true });
    await Deno.writeFile(join(dir, `s-${i}.jsonl`), bytes[i % bytes.length]!);
  }
  await Deno.writeTextFile(marker, "");
}

await prepare();
const quiet = { onWarning: () => {} };
// Warm the index once, so the list group measures a warm index.
{
  using index = await SessionIndex.open(root, quiet);
  await index.refresh();
}

Deno.bench({
  name: "list 10,000 sessions without the index (first 4 KiB of each)",
  group: "list 10,000",
  baseline: true,
  n: 5,
  warmup: 1,
  async fn() {
    const listed = await listSessions(root);
    if (listed.length !== SESSIONS) throw new Error(`${listed.length}`);
  },
});

Deno.bench({
  name: "list 10,000 sessions from a warm index",
  group: "list 10,000",
  n: 20,
  warmup: 2,
  async fn() {
    using index = await SessionIndex.open(root, { ...quiet, create: false });
    const listed = await index.list();
    if (listed.length !== SESSIONS) throw new Error(`${listed.length}`);
  },
});

Deno.bench({
  name: "only readdir and one stat per file (what no true list can skip)",
  group: "list 10,000",
  n: 20,
  warmup: 2,
  fn: () => readdirAndStat(sessions, SESSIONS),
});

/** `cli list` in a fresh process, as people run it; its output thrown away. */
async function cliList(...args: string[]): Promise<void> {
  const cli = new URL("../cli.ts", import.meta.url).pathname;
  const { code } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", cli, "list", "--data-dir", root, ...args],
    stdout: "null",
    stderr: "null",
  }).output();
  if (code !== 0) throw new Error(`cli list exited with ${code}`);
}

Deno.bench({
  name: "cli list --no-index, a fresh process (the table)",
  group: "cli list 10,000",
  baseline: true,
  n: 3,
  warmup: 1,
  async fn() {
    await cliList("--no-index");
  },
});

Deno.bench({
  name: "cli list, a fresh process (the table)",
  group: "cli list 10,000",
  n: 5,
  warmup: 1,
  async fn() {
    await cliList();
  },
});

Deno.bench({
  name: "cli --help, a fresh process (the start of every command)",
  group: "cli list 10,000",
  n: 5,
  warmup: 1,
  async fn() {
    const cli = new URL("../cli.ts", import.meta.url).pathname;
    await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", cli, "--help"],
      stdout: "null",
    }).output();
  },
});

const changed = join(sessions, "-work-project-7", "s-777.jsonl");
const line = new TextEncoder().encode(
  JSON.stringify({
    type: "custom",
    customType: "bench",
    data: {},
    id: "bench0001",
    parentId: null,
    timestamp: "2026-11-30T09:00:00.000Z",
  }) + "\n",
);

Deno.bench({
  name: "cold build of the index of 10,000 sessions",
  group: "refresh 10,000",
  baseline: true,
  n: 2,
  warmup: 0,
  async fn() {
    using index = await SessionIndex.open(root, quiet);
    const done = await index.refresh({ rebuild: true }); // every row forgotten first
    if (done.refreshed !== SESSIONS) throw new Error(`${done.refreshed}`);
  },
});

Deno.bench({
  name: "refresh after one file changed",
  group: "refresh 10,000",
  n: 20,
  warmup: 1,
  async fn(b) {
    await Deno.writeFile(changed, line, { append: true });
    b.start();
    using index = await SessionIndex.open(root, quiet);
    const done = await index.refresh();
    b.end();
    if (done.refreshed !== 1) throw new Error(`${done.refreshed}`);
  },
});

Deno.bench({
  name: "only readdir and one stat per file (the floor of a refresh)",
  group: "refresh 10,000",
  n: 20,
  warmup: 2,
  fn: () => readdirAndStat(sessions, SESSIONS),
});

Deno.bench({
  name: "refresh when nothing changed (a stat per file, then the mark)",
  group: "refresh 10,000",
  n: 20,
  warmup: 2,
  async fn() {
    using index = await SessionIndex.open(root, quiet);
    const done = await index.refresh();
    if (!done.fresh) throw new Error("the mark was not used");
  },
});
