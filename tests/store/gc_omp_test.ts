/**
 * Our gc against omp's own (issue 30: "test each source of references
 * against omp's own gc rules"): one data dir holding a blob for every source
 * of references, collected once by omp's real storage gc (omp 18.3.4,
 * `runGcCommand` in `pi-coding-agent/src/cli/gc-cli.ts`, run by the peer
 * oracle's Bun) and once by ours. We must keep every blob omp keeps, and
 * more only where the loader follows a reference omp's byte scan misses.
 * Skipped where the oracle is absent.
 */
import { deepStrictEqual, equal } from "node:assert/strict";
import { join } from "node:path";
import { BlobStore } from "../../src/store/blob_store.ts";
import { cliInProcess, makeDataDir } from "../_cli.ts";
import { HAS_OMP, OMP, SKIPPED } from "../_omp.ts";
import { tempDir } from "../_session_files.ts";

const BUN = join(OMP, "node_modules", ".bin", "bun");

/**
 * omp's blob gc, for real: `runGcCommand({ blobs, apply, json })`. Its
 * settings module is stubbed (the peer's pi-tui lacks a file it imports;
 * with `blobs` selected, omp's gc reads no setting).
 */
const SCRIPT = `
import { plugin } from "bun";
plugin({
  name: "stub-settings",
  setup(build) {
    build.onLoad({ filter: /pi-coding-agent\\/src\\/config\\/settings\\.ts$/ }, () => ({
      contents: "export class Settings {}",
      loader: "ts",
    }));
  },
});
const gc = ${
  JSON.stringify(
    join(OMP, "node_modules/@oh-my-pi/pi-coding-agent/src/cli/gc-cli.ts"),
  )
};
const { runGcCommand } = await import(gc);
await runGcCommand({ flags: { agentDir: process.argv[2], blobs: true, json: true, apply: true } });
`;

async function ompGc(dataDir: string, home: string): Promise<unknown> {
  const script = join(home, "omp-gc.ts");
  await Deno.writeTextFile(script, SCRIPT);
  const r = await new Deno.Command(BUN, {
    args: [script, dataDir],
    cwd: OMP,
    env: { HOME: home, PATH: Deno.env.get("PATH") ?? "" },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const out = new TextDecoder().decode(r.stdout);
  equal(r.code, 0, new TextDecoder().decode(r.stderr));
  return JSON.parse(out.slice(out.indexOf("{")));
}

async function gzip(text: string): Promise<Uint8Array> {
  const stream = new Blob([text]).stream().pipeThrough(
    new CompressionStream("gzip"),
  );
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

async function blobNames(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) {
    if (/^[0-9a-f]{64}$/.test(e.name)) out.push(e.name);
  }
  return out.sort();
}

Deno.test({
  name:
    `blobs gc keeps every blob omp's own gc keeps, source by source${SKIPPED}`,
  ignore: !HAS_OMP,
  fn: async () => {
    await using d = await makeDataDir();
    await using out = await tempDir();
    const store = new BlobStore(d.blobs);
    const hexOf = async (name: string) =>
      (await store.put(new TextEncoder().encode(name))).slice(12);
    const blob = {
      archive: await hexOf("archive"),
      registered: await hexOf("registered"),
      breadcrumb: await hexOf("breadcrumb"),
      gz: await hexOf("gz"),
      bak: await hexOf("bak"),
      upper: await hexOf("upper"),
      escaped: await hexOf("escaped"),
      keep: await hexOf("keep"),
      orphan: await hexOf("orphan"),
    };
    const line = (hex: string) =>
      `{"type":"custom","data":"blob:sha256:${hex}"}\n`;
    // omp: getArchivedSessionsDir = <agentDir>/archive/sessions, *.jsonl.gz
    const archive = join(d.root, "archive", "sessions", "-src-lumen-api");
    await Deno.mkdir(archive, { recursive: true });
    await Deno.writeFile(
      join(archive, "a.jsonl.gz"),
      await gzip(line(blob.archive)),
    );
    // omp: collectRegisteredSessionFiles (custom-session-files/<hash> = the path)
    await Deno.writeTextFile(join(out.path, "custom"), line(blob.registered));
    await Deno.mkdir(join(d.root, "custom-session-files"));
    await Deno.writeTextFile(
      join(d.root, "custom-session-files", "h1"),
      join(out.path, "custom"),
    );
    // omp: collectBreadcrumbSessionFiles (terminal-sessions/<id> = cwd \n file)
    await Deno.writeTextFile(
      join(out.path, "crumb.jsonl"),
      line(blob.breadcrumb),
    );
    await Deno.mkdir(join(d.root, "terminal-sessions"));
    await Deno.writeTextFile(
      join(d.root, "terminal-sessions", "t1"),
      `${out.path}\ncrumb.jsonl\n`,
    );
    // omp: JSONL_GZ_GLOB and JSONL_BACKUP_GLOB under sessions/
    await Deno.writeFile(d.session("b.jsonl.gz"), await gzip(line(blob.gz)));
    await Deno.writeTextFile(d.session("b.jsonl.2.bak"), line(blob.bak));
    // omp: BLOB_REF_RE = /\bblob:sha256:([a-f0-9]{64})\b/gi, lowercased
    await Deno.writeTextFile(
      d.session("c.jsonl"),
      line(blob.upper).toUpperCase(),
    );
    // Only the loader: an escaped digit (omp's byte scan misses it) ...
    await Deno.writeTextFile(
      d.session("d.jsonl"),
      `{"type":"custom","data":"blob:sha256:\\u00${
        blob.escaped.charCodeAt(0).toString(16)
      }${blob.escaped.slice(1)}"}\n`,
    );
    // ... and a session kept beside sessions/, whose blobs live here.
    await Deno.mkdir(join(d.root, "keep"));
    await Deno.writeTextFile(join(d.root, "keep", "x.jsonl"), line(blob.keep));
    // Every blob two hours old: past omp's 5-minute grace and our hour.
    const then = new Date(Date.now() - 2 * 3_600_000);
    for await (const e of Deno.readDir(d.blobs)) {
      await Deno.utime(join(d.blobs, e.name), then, then);
    }
    const ompDir = join(out.path, "omp-agent");
    const copy = await new Deno.Command("cp", { args: ["-a", d.root, ompDir] })
      .output();
    equal(copy.code, 0);

    await ompGc(ompDir, out.path);
    const r = await cliInProcess([
      "blobs",
      "gc",
      "--data-dir",
      d.root,
      "--yes",
    ]);
    equal(r.code, 0, r.stderr);

    const omp = await blobNames(join(ompDir, "blobs"));
    const ours = await blobNames(d.blobs);
    // All omp keeps, we keep.
    deepStrictEqual(omp.filter((h) => !ours.includes(h)), []);
    // More only where the loader follows a reference omp's scan does not see.
    deepStrictEqual(
      ours.filter((h) => !omp.includes(h)).sort(),
      [blob.escaped, blob.keep].sort(),
    );
    for (
      const hex of [
        blob.archive,
        blob.registered,
        blob.breadcrumb,
        blob.gz,
        blob.bak,
        blob.upper,
      ]
    ) {
      equal(omp.includes(hex), true, `omp keeps ${hex}`);
    }
    equal(omp.includes(blob.orphan) || ours.includes(blob.orphan), false);
  },
});
