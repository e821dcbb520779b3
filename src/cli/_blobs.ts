/**
 * `cli blobs verify` and `cli blobs gc`: check and clean a data dir's blob
 * store.
 *
 * @module
 */

import { join } from "node:path";
import { BLOB_REF_PREFIX } from "../format/blob_ref.ts";
import { BlobStore } from "../store/blob_store.ts";
import { resolveDataDir } from "../store/data_dir.ts";
import { sessionsDir } from "../store/places.ts";
import { listBlobFolder, twinCount, unreferenced } from "./_blob_folder.ts";
import {
  type Command,
  defineCommand,
  printError,
  writeJson,
} from "./_command.ts";
import { attempt, failure } from "./_failure.ts";
import { formatBytes, sanitizeLines } from "./_format.ts";
import { progressBar } from "./_progress.ts";
import type { CliIo } from "./_io.ts";
import { findSessionFiles, scanBlobRefs } from "./_scan.ts";

const HELP = `Usage: cli blobs verify [--data-dir D] [--json]
       cli blobs gc [--data-dir D] [--yes] [--json]

verify  Re-hash every blob in <data dir>/blobs and report those whose bytes
        no longer hash to their name (exit code 1 when there is one). Typed
        twins (<hex>.png) and temp files are skipped; other files are listed.
gc      Find the blobs that no session file under <data dir>/sessions
        references (a byte scan for blob:sha256:<hex>, so a damaged line
        still protects its blobs) and report them with their sizes. Only
        with --yes are they deleted, with their typed twins. Run it while no
        agent is writing: a blob stored just before the scan, for a line
        written just after it, looks unreferenced.

Options:
  --data-dir D   the data dir (default: $XDEV_DATA_DIR, else "dataDir" in
                 ~/.xdev/config.jsonc, else ~/.xdev/agent)
  --yes          gc: delete what it found
  --json         print an object instead of text
`;

/** Items from which a progress bar is drawn (on a terminal). */
const _PROGRESS_FROM = 8;

/** `cli blobs verify` and `cli blobs gc`. */
export const blobs: Command = defineCommand({
  name: "blobs",
  help: HELP,
  flags: { "data-dir": "value", yes: "switch", json: "switch" },
  subcommands: ["verify", "gc"],
  run: async (call, io) => {
    if (call.subcommand === "verify" && call.has("yes")) {
      throw call.usageError("--yes is for gc");
    }
    const dataDir = call.value("data-dir") ?? await resolveDataDir();
    const json = call.has("json");
    return call.subcommand === "verify"
      ? await _verify(join(dataDir, "blobs"), json, io)
      : await _gc(dataDir, { yes: call.has("yes"), json }, io);
  },
});

async function _verify(
  dir: string,
  json: boolean,
  io: CliIo,
): Promise<number> {
  const listing = await listBlobFolder(dir, "verify");
  const store = new BlobStore(dir);
  const mismatched: string[] = [];
  const unusable: { name: string; message: string }[] = [];
  const progress = progressBar(io, {
    total: listing.blobs.size,
    unit: "blobs",
    minimum: _PROGRESS_FROM,
  });
  let i = 0;
  for (const hex of listing.blobs.keys()) {
    progress.update(i++);
    try {
      if (!await store.verify(`${BLOB_REF_PREFIX}${hex}`)) mismatched.push(hex);
    } catch (err) {
      unusable.push({ name: hex, message: (err as Error).message });
    }
  }
  progress.finish(listing.blobs.size);
  const failed = mismatched.length + unusable.length;
  if (json) {
    const out = {
      dir,
      checked: listing.blobs.size,
      ok: listing.blobs.size - failed,
      mismatched,
      unusable,
      unknown: listing.unknown,
      skipped: { twins: twinCount(listing), temp: listing.temp },
    };
    writeJson(io, out);
  } else {
    const lines = [
      `${listing.blobs.size} blobs in ${dir}: ${
        listing.blobs.size - failed
      } ok, ${mismatched.length} mismatched${
        unusable.length > 0 ? `, ${unusable.length} unusable` : ""
      }`,
      ...mismatched.map((hex) => `mismatch  ${hex}`),
      ...unusable.map((u) => `unusable  ${u.name}: ${u.message}`),
      ...listing.unknown.map((name) => `unknown   ${name}`),
    ];
    io.stdout(`${sanitizeLines(lines.join("\n"))}\n`);
  }
  if (failed === 0) return 0;
  printError(
    io,
    `Cannot verify the blobs in "${dir}": ${failed} ${
      failed === 1 ? "blob does" : "blobs do"
    } not hash to ${failed === 1 ? "its name" : "their names"}`,
  );
  return 1;
}

async function _gc(
  dataDir: string,
  { yes, json }: { yes: boolean; json: boolean },
  io: CliIo,
): Promise<number> {
  const dir = join(dataDir, "blobs");
  // Blobs first: one stored while the sessions are scanned is not a candidate.
  const listing = await listBlobFolder(dir, "collect");
  const root = sessionsDir(dataDir);
  // Without sessions every blob would look unreferenced: refuse.
  const files = await attempt(
    `collect the blobs of "${dataDir}"`,
    () => findSessionFiles(root),
  );
  const referenced = new Set<string>();
  const progress = progressBar(io, {
    total: files.length,
    unit: "sessions",
    minimum: _PROGRESS_FROM,
  });
  for (const [i, file] of files.entries()) {
    progress.update(i);
    await attempt(
      `collect blobs: reading "${file}" failed`,
      () => scanBlobRefs(file, referenced),
    );
  }
  progress.finish(files.length);
  const garbage = await unreferenced(dir, listing, referenced);
  const bytes = garbage.reduce((n, g) => n + g.bytes, 0);
  const failures: string[] = [];
  if (yes) {
    for (const g of garbage) {
      for (const name of g.files) {
        try {
          await Deno.remove(join(dir, name));
        } catch (err) {
          if (err instanceof Deno.errors.NotFound) continue;
          failures.push(failure(`delete "${name}"`, err).message);
        }
      }
    }
  }
  if (json) {
    const out = {
      dir,
      sessions: files.length,
      blobs: listing.blobs.size,
      referenced: referenced.size,
      unreferenced: garbage,
      bytes,
      deleted: yes && failures.length === 0,
      unknown: listing.unknown,
    };
    writeJson(io, out);
  } else {
    const n = garbage.length;
    const head = `${listing.blobs.size} blobs in ${dir}, ${files.length} ${
      files.length === 1 ? "session" : "sessions"
    } scanned: ${n} unreferenced (${formatBytes(bytes)})`;
    const lines = garbage.map((g) =>
      `${g.hex}  ${formatBytes(g.bytes).padStart(9)}${_twinsText(g)}`
    );
    const tail = n === 0 ? [] : [
      yes && failures.length === 0
        ? `deleted ${n} ${n === 1 ? "blob" : "blobs"}`
        : yes
        ? "some files could not be deleted"
        : "run with --yes to delete them",
    ];
    io.stdout(`${sanitizeLines([head, ...lines, ...tail].join("\n"))}\n`);
  }
  for (const f of failures) printError(io, f);
  return failures.length > 0 ? 1 : 0;
}

/** ` + .png` for the twins deleted with a blob (` .png only` when the blob is gone). */
function _twinsText(g: { hex: string; files: string[] }): string {
  const exts = g.files.filter((f) => f !== g.hex).map((f) => f.slice(64));
  if (exts.length === 0) return "";
  return g.files[0] === g.hex
    ? `  + ${exts.join(" ")}`
    : `  ${exts.join(" ")} only`;
}
