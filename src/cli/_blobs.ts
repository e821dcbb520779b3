/**
 * `cli blobs verify` and `cli blobs gc`: check and clean a data dir's blob
 * store.
 *
 * @module
 */

import { join } from "node:path";
import {
  BLOB_REF_PREFIX,
  BlobStore,
  resolveDataDir,
  sessionsDir,
} from "../../mod.ts";
import { attempt, defineCommand, failure, writeJson } from "./_command.ts";
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

const _HEX = /^[0-9a-f]{64}$/;
const _TWIN = /^([0-9a-f]{64})\.[a-z0-9]{1,8}$/;
/** BlobStore's temp files: `.<name>.<random>.tmp`. */
const _TEMP = /^\..+\.tmp$/;
/** Items from which a progress bar is drawn (on a terminal). */
const _PROGRESS_FROM = 8;

/** A blobs folder by kind of name. */
interface _Listing {
  /** `<hex>` files and their sizes, sorted by name. */
  blobs: Map<string, number>;
  /** `<hex>.<ext>` twins by digest (a twin may have lost its blob). */
  twins: Map<string, string[]>;
  /** Temp files left by an interrupted put. */
  temp: number;
  /** Anything else. */
  unknown: string[];
}

/** `cli blobs verify` and `cli blobs gc`. */
export const blobs = defineCommand({
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
      ? await _verify(dataDir, json, io)
      : await _gc(dataDir, call.has("yes"), json, io);
  },
});

async function _verify(
  dataDir: string,
  json: boolean,
  io: CliIo,
): Promise<number> {
  const dir = join(dataDir, "blobs");
  const listing = await _list(dir, "verify");
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
      skipped: { twins: _count(listing.twins), temp: listing.temp },
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
  io.stderr(
    `error: Cannot verify the blobs in "${dir}": ${failed} ${
      failed === 1 ? "blob does" : "blobs do"
    } not hash to ${failed === 1 ? "its name" : "their names"}\n`,
  );
  return 1;
}

async function _gc(
  dataDir: string,
  yes: boolean,
  json: boolean,
  io: CliIo,
): Promise<number> {
  const dir = join(dataDir, "blobs");
  // Blobs first: one stored while the sessions are scanned is not a candidate.
  const listing = await _list(dir, "collect");
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
  const garbage = await _unreferenced(dir, listing, referenced);
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
  for (const f of failures) io.stderr(`error: ${f}\n`);
  return failures.length > 0 ? 1 : 0;
}

/** The digests (blobs and orphaned twins) no session names, with their files. */
async function _unreferenced(
  dir: string,
  listing: _Listing,
  referenced: Set<string>,
): Promise<{ hex: string; bytes: number; files: string[] }[]> {
  const hexes = new Set([...listing.blobs.keys(), ...listing.twins.keys()]);
  const out = [];
  for (const hex of [...hexes].sort()) {
    if (referenced.has(hex)) continue;
    const twins = listing.twins.get(hex) ?? [];
    let bytes = listing.blobs.get(hex);
    if (bytes === undefined) {
      bytes = (await Deno.lstat(join(dir, twins[0]!))).size;
    }
    const files = listing.blobs.has(hex) ? [hex, ...twins] : twins;
    out.push({ hex, bytes, files });
  }
  return out;
}

/** ` + .png` for the twins deleted with a blob (` .png only` when the blob is gone). */
function _twinsText(g: { hex: string; files: string[] }): string {
  const exts = g.files.filter((f) => f !== g.hex).map((f) => f.slice(64));
  if (exts.length === 0) return "";
  return g.files[0] === g.hex
    ? `  + ${exts.join(" ")}`
    : `  ${exts.join(" ")} only`;
}

function _count(twins: Map<string, string[]>): number {
  let n = 0;
  for (const names of twins.values()) n += names.length;
  return n;
}

/** The blobs folder by kind of name; an absent folder holds nothing. */
async function _list(dir: string, verb: string): Promise<_Listing> {
  const listing: _Listing = {
    blobs: new Map(),
    twins: new Map(),
    temp: 0,
    unknown: [],
  };
  const blobs: [string, number][] = [];
  try {
    // As BlobStore: a linked blobs folder could point deletes elsewhere.
    if ((await Deno.lstat(dir)).isSymlink) {
      throw new Error(
        `Cannot ${verb} the blobs in "${dir}": it is a symbolic link`,
      );
    }
    for await (const e of Deno.readDir(dir)) {
      const twin = _TWIN.exec(e.name);
      if (_HEX.test(e.name) && !e.isDirectory) {
        blobs.push([e.name, (await Deno.lstat(join(dir, e.name))).size]);
      } else if (twin !== null && !e.isDirectory) {
        const names = listing.twins.get(twin[1]!) ?? [];
        listing.twins.set(twin[1]!, [...names, e.name].sort());
      } else if (_TEMP.test(e.name)) listing.temp++;
      else listing.unknown.push(e.name);
    }
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return listing;
    throw failure(`${verb} the blobs in "${dir}"`, err);
  }
  listing.blobs = new Map(blobs.sort(([a], [b]) => a < b ? -1 : 1));
  listing.unknown.sort();
  return listing;
}
