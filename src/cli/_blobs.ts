/**
 * `cli blobs verify` and `cli blobs gc`: check and clean a data dir's blob
 * store. The blobs folder is read by kind of name (blobs, their typed twins,
 * temp files, anything else); a blob is referenced when any session file's
 * bytes name it.
 *
 * @module
 */

import { join } from "node:path";
import { fs, isNotFound, statOrUndefined } from "../_fs.ts";
import { BLOB_REF_PREFIX } from "../format/blob_ref.ts";
import { openRegular } from "../read/_open.ts";
import { BlobStore } from "../store/blob_store.ts";
import { resolveDataDir } from "../store/data_dir.ts";
import { sessionsDir } from "../store/places.ts";
import {
  attempt,
  type Command,
  defineCommand,
  failure,
  printError,
  writeJson,
} from "./_command.ts";
import { formatBytes, plural, sanitizeLines } from "./_format.ts";
import type { CliIo } from "./_io.ts";
import { progressBar } from "./_progress.ts";

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
export const command: Command = defineCommand({
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
  const checked = listing.blobs.size;
  const bar = progressBar(io, {
    total: checked,
    unit: "blobs",
    minimum: _PROGRESS_FROM,
  });
  let i = 0;
  for (const hex of listing.blobs.keys()) {
    bar.update(i++);
    try {
      if (!await store.verify(`${BLOB_REF_PREFIX}${hex}`)) mismatched.push(hex);
    } catch (err) {
      unusable.push({ name: hex, message: (err as Error).message });
    }
  }
  bar.finish(checked);
  const failed = mismatched.length + unusable.length;
  if (json) {
    writeJson(io, {
      dir,
      checked,
      ok: checked - failed,
      mismatched,
      unusable,
      unknown: listing.unknown,
      skipped: { twins: twinCount(listing), temp: listing.temp },
    });
  } else {
    const lines = [
      `${checked} blobs in ${dir}: ${
        checked - failed
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
  const one = failed === 1;
  printError(
    io,
    `Cannot verify the blobs in "${dir}": ${
      one ? "1 blob does" : `${failed} blobs do`
    } not hash to ${one ? "its name" : "their names"}`,
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
  // Without sessions every blob would look unreferenced: refuse.
  const files = await attempt(
    `collect the blobs of "${dataDir}"`,
    () => findSessionFiles(sessionsDir(dataDir)),
  );
  const referenced = new Set<string>();
  const bar = progressBar(io, {
    total: files.length,
    unit: "sessions",
    minimum: _PROGRESS_FROM,
  });
  for (const [i, file] of files.entries()) {
    bar.update(i);
    await attempt(
      `collect blobs: reading "${file}" failed`,
      () => scanBlobRefs(file, referenced),
    );
  }
  bar.finish(files.length);
  const garbage = await unreferenced(dir, listing, referenced);
  const bytes = garbage.reduce((n, g) => n + g.bytes, 0);
  const failures = yes ? await _delete(dir, garbage) : [];
  const deleted = yes && failures.length === 0;
  if (json) {
    writeJson(io, {
      dir,
      sessions: files.length,
      blobs: listing.blobs.size,
      referenced: referenced.size,
      unreferenced: garbage,
      bytes,
      deleted,
      unknown: listing.unknown,
    });
  } else {
    const n = garbage.length;
    const head = `${listing.blobs.size} blobs in ${dir}, ${
      plural(files.length, "session")
    } scanned: ${n} unreferenced (${formatBytes(bytes)})`;
    const lines = garbage.map((g) =>
      `${g.hex}  ${formatBytes(g.bytes).padStart(9)}${_twinsText(g)}`
    );
    const tail = n === 0 ? [] : [
      deleted
        ? `deleted ${plural(n, "blob")}`
        : yes
        ? "some files could not be deleted"
        : "run with --yes to delete them",
    ];
    io.stdout(`${sanitizeLines([head, ...lines, ...tail].join("\n"))}\n`);
  }
  for (const f of failures) printError(io, f);
  return failures.length > 0 ? 1 : 0;
}

/** Delete each unreferenced blob's files; what could not be deleted, in words. */
async function _delete(
  dir: string,
  garbage: Unreferenced[],
): Promise<string[]> {
  const failures: string[] = [];
  for (const name of garbage.flatMap((g) => g.files)) {
    try {
      await fs().remove(join(dir, name));
    } catch (err) {
      if (!isNotFound(err)) {
        failures.push(failure(`delete "${name}"`, err).message);
      }
    }
  }
  return failures;
}

/** ` + .png` for the twins deleted with a blob (` .png only` when the blob is gone). */
function _twinsText(g: Unreferenced): string {
  const exts = g.files.filter((f) => f !== g.hex).map((f) => f.slice(64));
  if (exts.length === 0) return "";
  return g.files[0] === g.hex
    ? `  + ${exts.join(" ")}`
    : `  ${exts.join(" ")} only`;
}

const _HEX = /^[0-9a-f]{64}$/;
const _TWIN = /^([0-9a-f]{64})\.[a-z0-9]{1,8}$/;
/** BlobStore's temp files: `.<name>.<random>.tmp`. */
const _TEMP = /^\..+\.tmp$/;

/** A blobs folder by kind of name. */
export interface BlobListing {
  /** `<hex>` files and their sizes, sorted by name. */
  blobs: Map<string, number>;
  /** `<hex>.<ext>` twins by digest (a twin may have lost its blob). */
  twins: Map<string, string[]>;
  /** Temp files left by an interrupted put. */
  temp: number;
  /** Anything else. */
  unknown: string[];
}

/**
 * Read a blobs folder by kind of name; an absent folder holds nothing.
 *
 * @param dir The blobs folder.
 * @param verb What the command does with it, for errors: `verify`, `collect`.
 * @returns Its files by kind.
 * @throws {Error} `Cannot <verb> the blobs in "<dir>": …` when it cannot be
 * read, or is a symbolic link (which could point deletes elsewhere).
 */
export async function listBlobFolder(
  dir: string,
  verb: string,
): Promise<BlobListing> {
  const listing: BlobListing = {
    blobs: new Map(),
    twins: new Map(),
    temp: 0,
    unknown: [],
  };
  const blobs: [string, number][] = [];
  try {
    // As BlobStore: a linked blobs folder could point deletes elsewhere.
    if ((await fs().lstat(dir)).kind === "symlink") {
      throw new Error(
        `Cannot ${verb} the blobs in "${dir}": it is a symbolic link`,
      );
    }
    for (const e of await fs().readDir(dir)) {
      const twin = _TWIN.exec(e.name);
      if (_HEX.test(e.name) && !e.isDirectory) {
        blobs.push([e.name, (await fs().lstat(join(dir, e.name))).size]);
      } else if (twin !== null && !e.isDirectory) {
        const names = listing.twins.get(twin[1]!) ?? [];
        listing.twins.set(twin[1]!, [...names, e.name].sort());
      } else if (_TEMP.test(e.name)) listing.temp++;
      else listing.unknown.push(e.name);
    }
  } catch (err) {
    if (isNotFound(err)) return listing;
    throw failure(`${verb} the blobs in "${dir}"`, err);
  }
  listing.blobs = new Map(blobs.sort(([a], [b]) => a < b ? -1 : 1));
  listing.unknown.sort();
  return listing;
}

/** A digest no session names, its size, and its files (the blob and its twins). */
export interface Unreferenced {
  /** The digest. */
  hex: string;
  /** The blob's size (a twin's, when the blob itself is gone). */
  bytes: number;
  /** The files to delete: `<hex>` first when it is there, then the twins. */
  files: string[];
}

/**
 * The digests (blobs and orphaned twins) no session names, with their files.
 *
 * @param dir The blobs folder.
 * @param listing What {@linkcode listBlobFolder} found in it.
 * @param referenced The digests the sessions name.
 * @returns The others, sorted by digest.
 */
export async function unreferenced(
  dir: string,
  listing: BlobListing,
  referenced: Set<string>,
): Promise<Unreferenced[]> {
  const hexes = new Set([...listing.blobs.keys(), ...listing.twins.keys()]);
  const out: Unreferenced[] = [];
  for (const hex of [...hexes].sort()) {
    if (referenced.has(hex)) continue;
    const twins = listing.twins.get(hex) ?? [];
    const bytes = listing.blobs.get(hex) ??
      (await fs().lstat(join(dir, twins[0]!))).size;
    const files = listing.blobs.has(hex) ? [hex, ...twins] : twins;
    out.push({ hex, bytes, files });
  }
  return out;
}

/**
 * How many typed twins a listing holds.
 *
 * @param listing A blobs folder's listing.
 * @returns The number of `<hex>.<ext>` files.
 */
export function twinCount(listing: BlobListing): number {
  return [...listing.twins.values()].flat().length;
}

/**
 * `blob:sha256:<64 hex>` followed by anything: a reference whose hex runs on
 * counts too, so a scan never misses a blob something may still need.
 */
const _REF = /blob:sha256:([0-9a-f]{64})/g;
/** Characters kept from one chunk for the next, so a reference split across two is found. */
const _CARRY = BLOB_REF_PREFIX.length + 63;
/** Bytes read at once. */
const _CHUNK = 64 << 10;

/**
 * Add the digest of every `blob:sha256:<64 hex>` in a file's bytes to
 * `found`, whatever line, field or damage it sits in (a byte scan: nothing is
 * parsed, so a torn or unparsable line still protects its blobs).
 *
 * @param path Any file.
 * @param found Where the digests go.
 */
export async function scanBlobRefs(
  path: string,
  found: Set<string>,
): Promise<void> {
  await using file = await openRegular(path, `Cannot read "${path}"`);
  // Each byte is one character (latin1), so no multi-byte sequence split
  // across chunks can hide ASCII.
  const decoder = new TextDecoder("latin1");
  const chunk = new Uint8Array(_CHUNK);
  let carry = "";
  for (let at = 0, n; (n = await file.read(chunk, at)) > 0; at += n) {
    const text = carry + decoder.decode(chunk.subarray(0, n));
    for (const m of text.matchAll(_REF)) found.add(m[1]!);
    carry = text.slice(-_CARRY);
  }
}

/**
 * Every `*.jsonl` under `dir`, recursively, sorted. Symbolic links are
 * followed (a session kept elsewhere and linked in still counts, and still
 * protects its blobs from `gc`), each real folder walked once, so a link
 * loop cannot trap the walk.
 *
 * @param dir The folder.
 * @returns The paths (`dir` joined with each file's relative path).
 * @throws {Error} When `dir` does not exist (`ENOENT`) or cannot be read.
 */
export async function findSessionFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walked = new Set<string>();
  const walk = async (folder: string): Promise<void> => {
    const real = await fs().realPath(folder);
    if (walked.has(real)) return;
    walked.add(real);
    for (const e of await fs().readDir(folder)) {
      const path = join(folder, e.name);
      let { isFile, isDirectory } = e;
      if (e.isSymlink) {
        const target = await statOrUndefined(path);
        isFile = target?.kind === "file";
        isDirectory = target?.kind === "directory";
      }
      if (isDirectory) await walk(path);
      else if (isFile && e.name.endsWith(".jsonl")) out.push(path);
    }
  };
  await walk(dir);
  return out.sort();
}
