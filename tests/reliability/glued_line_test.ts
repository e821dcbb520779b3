/**
 * Every reader on glued lines: one physical line whose first JSON object is
 * followed by a second (`{...}{...}`, what omp leaves when it appends after
 * a line that lacks its newline). The loader (`read/_decode.ts`) and omp
 * keep the first object; every command and reader must read the line as
 * the loader does: the second object is no entry, its words are not found,
 * its call is not counted, and the first object's are. Only blobs gc reads
 * more (every reference the bytes hold, as omp's gc does), so no blob a
 * reader could follow is deleted.
 *
 * The sessions: a version 3 file with a glued message mid-session, a
 * glued call and a glued omp `custom` line (a blob ref in its tail); a
 * version 3 file whose header line is glued; pi's version 1 fixture with
 * two of its message lines glued. (The tree's own glued cases are in
 * `tests/tree/session_tree_test.ts`; the migration's in
 * `tests/session/migrate_file_test.ts`.)
 */
import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { join } from "node:path";
import {
  forkSession,
  searchSessions,
  Session,
  SessionIndex,
  SessionTree,
  usageReport,
  watchSession,
} from "../../mod.ts";
import { cliInProcess } from "../_cli.ts";
import {
  assistant,
  backdate,
  HEADER,
  sessionBytes,
  T0,
  tempDir,
  user,
} from "../_session_files.ts";

const USAGE = {
  input: 100,
  output: 10,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 110,
  cost: { input: 0.1, output: 0.01, total: 0.11 },
};
const BLOB = "b".repeat(64);
const PI = new URL("../../fixtures/pi/large-session-v1.jsonl", import.meta.url);

/** Two objects on one line. */
function glue(a: Record<string, unknown>, b: Record<string, unknown>): string {
  return JSON.stringify(a) + JSON.stringify(b);
}

/** The data dir's three sessions. */
async function build(root: string): Promise<Record<string, string>> {
  const folder = join(root, "sessions", "-home-dev-src-app");
  await Deno.mkdir(folder, { recursive: true });
  await Deno.mkdir(join(root, "blobs"));
  const file = (n: number, id: string) =>
    join(folder, `2026-10-0${n}T09-00-00-000Z_${id}.jsonl`);
  const v3 = file(1, HEADER.id);
  const custom = {
    type: "custom",
    customType: "note",
    data: { n: 1 },
    id: "c4",
    parentId: "a3",
    timestamp: T0,
  };
  await Deno.writeFile(
    v3,
    sessionBytes([
      user("u1", null, "one"),
      glue(
        user("u2", "u1", "alphaword"),
        user("x2", "u2", "omegaword"),
      ),
      glue(
        assistant("a3", "u2", "answered", { usage: USAGE }),
        assistant("x3", "a3", "glued call", { usage: USAGE }),
      ),
      glue(custom, user("x4", "c4", `tail blob:sha256:${BLOB}`)),
      user("u5", "c4", "five"),
    ]),
  );
  const headId = HEADER.id.slice(0, -1) + "2";
  const header = { ...HEADER, id: headId };
  const glueHead = file(2, headId);
  await Deno.writeFile(
    glueHead,
    sessionBytes([user("h1", null, "first")], {
      header: glue(header, user("x0", null, "headerword")),
    }),
  );
  // pi's version 1 fixture, its 5th and 6th lines (two messages) glued.
  const pi = join(folder, "2026-10-03T09-00-00-000Z_pi.jsonl");
  const lines = (await Deno.readTextFile(PI)).split("\n");
  lines.splice(4, 2, lines[4]! + lines[5]!);
  await Deno.writeTextFile(pi, lines.join("\n"));
  await Deno.writeTextFile(join(root, "blobs", BLOB), "x");
  const old = new Date(Date.now() - 30 * 86400_000);
  await Deno.utime(join(root, "blobs", BLOB), old, old);
  await backdate(join(root, "sessions"));
  return { v3, glueHead, pi };
}

/** The ids and leaf the loader gives, and whether it reported the glue. */
async function loaded(path: string) {
  await using s = await Session.open(path, { resolveBlobs: false });
  return {
    ids: s.entries.map((e) => e.id),
    leaf: s.leafId,
    glued: s.issues.some((i) => i.kind === "glued-line"),
    texts: JSON.stringify(s.buildContext().messages),
  };
}

async function run(args: string[]): Promise<string> {
  const r = await cliInProcess(args);
  equal(r.code, 0, `${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
}

Deno.test("every command reads a glued line as the loader does: the first object kept", async (t) => {
  await using dir = await tempDir();
  const root = dir.path;
  const files = await build(root);
  const want = new Map<string, Awaited<ReturnType<typeof loaded>>>();
  for (const path of Object.values(files)) want.set(path, await loaded(path));

  await t.step(
    "Session.open() keeps the first object and reports the glue",
    () => {
      const v3 = want.get(files.v3!)!;
      deepStrictEqual(v3.ids, ["u1", "u2", "a3", "c4", "u5"]);
      equal(v3.leaf, "u5");
      ok(v3.glued);
      ok(v3.texts.includes("alphaword") && !v3.texts.includes("omegaword"));
      const head = want.get(files.glueHead!)!;
      deepStrictEqual(head.ids, ["h1"]);
      ok(want.get(files.pi!)!.glued);
    },
  );

  await t.step(
    "tree (SessionTree and cli tree) gives the loader's ids and leaf",
    async () => {
      for (const [path, w] of want) {
        const tree = await SessionTree.read(path);
        deepStrictEqual([...tree.nodes()].map((n) => n.id), w.ids, path);
        equal(tree.leafId, w.leaf, path);
        const json = JSON.parse(
          await run(["tree", path, "--json", "--filter", "all"]),
        );
        deepStrictEqual(json.nodes.map((e: { id: string }) => e.id), w.ids);
        equal(json.leafId, w.leaf);
      }
    },
  );

  await t.step(
    "show, context, stats and tail agree with the loader",
    async () => {
      for (const [path, w] of want) {
        const show = JSON.parse(await run(["show", path, "--json", "--full"]));
        equal(show.leafId, w.leaf, path);
        const context = await run(["context", path, "--json"]);
        ok(!context.includes("omegaword") && !context.includes("headerword"));
        const stats = JSON.parse(await run(["stats", path, "--json"]));
        equal(stats.entries, w.ids.length, path);
        if (path === files.pi) {
          // A version 1 file is refused entry by entry, glued or not.
          const r = await cliInProcess(["tail", path, "--json"]);
          equal(r.code, 1);
          ok(r.stderr.includes("a version 1 file has no entry ids"));
          continue;
        }
        const tail = (await run(["tail", path, "-n", "1000", "--json"]))
          .trim().split("\n").map((l) => JSON.parse(l).id);
        deepStrictEqual(tail, w.ids, path);
      }
    },
  );

  await t.step(
    "list lists each session once, the glued header's too",
    async () => {
      const list = JSON.parse(
        await run([
          "list",
          "--data-dir",
          root,
          "--all",
          "--no-index",
          "--json",
        ]),
      );
      deepStrictEqual(
        list.map((s: { path: string }) => s.path).sort(),
        Object.values(files).sort(),
      );
    },
  );

  await t.step(
    "search finds the first object's words, not the second's (files and index)",
    async () => {
      const through = async (word: string) => {
        const scan = await searchSessions(root, word);
        {
          using index = await SessionIndex.open(root);
          await index.refresh();
        }
        using index = await SessionIndex.open(root);
        const indexed = await index.search(word);
        deepStrictEqual(
          indexed.hits.map((h) => h.entryId),
          scan.hits.map((h) => h.entryId),
          word,
        );
        return scan.hits.map((h) => h.entryId);
      };
      deepStrictEqual(await through("alphaword"), ["u2"]);
      deepStrictEqual(await through("omegaword"), []);
      deepStrictEqual(await through("headerword"), []);
    },
  );

  await t.step(
    "usage counts the glued call once, as the loader reads it (files and index)",
    async () => {
      // The version 3 file's one call the loader keeps (a3, first on its
      // glued line; x3, glued after it, is no entry). pi's version 1 file
      // counts the calls the loader keeps, with the ids it gives them (see
      // src/usage/_line_call.ts): its glued line's first object's, not the
      // second's.
      await using pi = await Session.open(files.pi!, {
        resolveBlobs: false,
        window: false,
      });
      const piCalls = pi.entries.filter((e) => {
        const m = (e as { message?: { role?: string; usage?: unknown } })
          .message;
        return e.type === "message" && m?.role === "assistant" &&
          m.usage !== undefined;
      }).map((e) => e.id);
      ok(piCalls.length > 0);
      const byFiles = await usageReport(root, { by: "session" });
      using index = await SessionIndex.open(root);
      const indexed = await index.usageReport({ by: "session" });
      equal(indexed.source, "index");
      for (const r of [byFiles, indexed]) {
        equal(r.totals.requests, 1 + piCalls.length);
        deepStrictEqual(
          r.rows.map((row) => row.key).sort(),
          [HEADER.id, pi.header.id].sort(),
        );
      }
    },
  );

  await t.step(
    "export md and html hold the first object's text only",
    async () => {
      for (const format of ["md", "html"]) {
        const out = join(root, `out.${format}`);
        await run(["export", files.v3!, "--format", format, "--out", out]);
        const text = await Deno.readTextFile(out);
        ok(text.includes("alphaword") && !text.includes("omegaword"), format);
      }
    },
  );

  await t.step("fork keeps what the loader keeps", async () => {
    for (const [path, w] of want) {
      const fork = await forkSession(
        path,
        join(root, `fork-${w.ids.length}.jsonl`),
      );
      const f = await loaded(fork.path);
      deepStrictEqual(f.ids.length, w.ids.length, path);
      equal(f.texts.includes("omegaword"), false);
    }
  });

  await t.step(
    "watchSession and tail -f yield the loader's entries",
    async () => {
      const stop = new AbortController();
      const seen: string[] = [];
      const done = (async () => {
        for await (
          const e of watchSession(files.v3!, {
            signal: stop.signal,
            from: "start",
          })
        ) {
          seen.push(e.id);
          if (e.id === "u5") stop.abort();
        }
      })();
      await done;
      deepStrictEqual(seen, want.get(files.v3!)!.ids);
    },
  );

  await t.step(
    "blobs gc keeps a blob named only in a glued line's tail",
    async () => {
      const r = await cliInProcess([
        "blobs",
        "gc",
        "--data-dir",
        root,
        "--yes",
      ]);
      equal(r.code, 0, r.stderr);
      await Deno.stat(join(root, "blobs", BLOB)); // still there
    },
  );
});
