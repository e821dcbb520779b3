/**
 * `cli blobs verify`, `cli blobs gc` and `cli blobs restore`: check and clean
 * a data dir's blob store. The blobs folder is read by kind of name (blobs,
 * their typed twins, temp files, the trash, anything else); gc and restore
 * are in `_blobs_gc.ts`.
 *
 * @module
 */

import { join } from "node:path";
import { fs, isNotFound } from "../_fs.ts";
import { BLOB_REF_PREFIX } from "../format/blob_ref.ts";
import { BlobStore } from "../store/blob_store.ts";
import { TRASH_FOLDER } from "../store/_blob_trash.ts";
import { resolveDataDir } from "../store/data_dir.ts";
import { walkFiles } from "../store/_gc_sources.ts";
import {
  type Command,
  defineCommand,
  failure,
  printError,
  writeJson,
} from "./_command.ts";
import { sanitizeLines } from "./_format.ts";
import type { CliIo } from "./_io.ts";
import { progressBar } from "./_progress.ts";
import { userPathOf } from "./_user_path.ts";

const ABOUT =
  `verify   Re-hash every blob in <data dir>/blobs and report those whose bytes
         no longer hash to their name (exit code 1 when there is one). Typed
         twins (<hex>.png), temp files and the trash are skipped; other files
         are listed.
gc       Find the blobs no session names and report them with their sizes.
         A blob is named when any of these files holds blob:sha256:<hex>,
         written out (in any line, a damaged one too) or spelled with JSON
         escapes (\u0030):
           - every *.jsonl, *.jsonl.gz (gzip) and *.jsonl.*.bak under the
             data dir (sessions/, omp's archive/sessions/, a session kept
             beside them such as keep/x.jsonl), the blobs folder left out;
           - each file named in omp's registry (custom-session-files/) and
             by its terminal breadcrumbs (terminal-sessions/).
         A blob changed within the grace period (--grace, default 1h; a
         store sets the time of a blob it is asked to store again) is kept.
         Only with --yes are the others moved, with their typed twins, to
         <data dir>/blobs/.trash/<time>/, under omp's gc.lock; each gc
         --yes also puts back any trashed blob a session names again and
         deletes for good what was trashed longer ago than --keep-trash
         (default 7d). When a file cannot be read (or holds a line over
         64 MiB) nothing is moved or deleted (exit code 1).
restore  Move every trashed blob back into <data dir>/blobs. By hand:
         mv <data dir>/blobs/.trash/*/<hex>* <data dir>/blobs/
`;

/** Items from which a progress bar is drawn (on a terminal). */
const _PROGRESS_FROM = 8;

/** `cli blobs verify`, `cli blobs gc` and `cli blobs restore`. */
export const command: Command = defineCommand({
  name: "blobs",
  summary: "Re-hash the blobs, trash those no session names, or put them back.",
  about: ABOUT,
  flags: {
    "data-dir": {
      value: "D",
      help:
        'the data dir (default: $XDEV_DATA_DIR, else "dataDir" in ~/.xdev/config.jsonc, else ~/.xdev/agent)',
    },
    yes: { help: "gc: move what it found to the trash" },
    grace: {
      value: "T",
      help:
        "gc: keep blobs changed this recently (30s, 5m, 1h, 2d; 0 for none; default 1h)",
    },
    "keep-trash": {
      value: "T",
      help: "gc: delete trashed blobs older than this (default 7d)",
    },
    json: { help: "print an object instead of text" },
  },
  subcommands: ["verify", "gc", "restore"],
  run: async (call, io) => {
    if (call.subcommand !== "gc") {
      for (const flag of ["yes", "grace", "keep-trash"] as const) {
        if (call.has(flag)) throw call.usageError(`--${flag} is for gc`);
      }
    }
    const duration = (flag: "grace" | "keep-trash", fallback: number) => {
      const text = call.value(flag);
      if (text === undefined) return fallback;
      const ms = parseDuration(text);
      if (ms === undefined) {
        throw call.usageError(
          `--${flag} takes a duration such as 30s, 5m, 1h or 7d, not "${text}"`,
        );
      }
      return ms;
    };
    const graceMs = duration("grace", GRACE_MS);
    const keepTrashMs = duration("keep-trash", KEEP_TRASH_MS);
    const dataDir = userPathOf(call.value("data-dir")) ??
      await resolveDataDir();
    const json = call.has("json");
    const { runGc, runRestore } = await import("./_blobs_gc.ts");
    switch (call.subcommand) {
      case "verify":
        return await _verify(join(dataDir, "blobs"), json, io);
      case "restore":
        return await runRestore(dataDir, json, io);
      default:
        return await runGc(dataDir, {
          yes: call.has("yes"),
          json,
          graceMs,
          keepTrashMs,
        }, io);
    }
  },
});

/** gc's default grace: a blob changed within the last hour is kept (omp's gc: five minutes). */
export const GRACE_MS = 60 * 60_000;
/** gc's default keep period of the trash: a week. */
export const KEEP_TRASH_MS = 7 * 24 * 60 * 60_000;

const _DURATION = /^(\d{1,9})(s|m|h|d)$/;
const _UNIT_MS: Record<string, number> = {
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/**
 * A duration as the gc flags take it: a whole number and a unit (`s`, `m`,
 * `h`, `d`), or `0`.
 *
 * @param text The flag's value.
 * @returns Milliseconds, or undefined when it is not such a duration.
 *
 * @example Durations
 * ```ts
 * import { parseDuration } from "./_blobs.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(parseDuration("5m"), 300_000);
 * equal(parseDuration("0"), 0);
 * equal(parseDuration("5"), undefined);
 * ```
 */
export function parseDuration(text: string): number | undefined {
  if (text === "0") return 0;
  const m = _DURATION.exec(text);
  return m === null ? undefined : Number(m[1]) * _UNIT_MS[m[2]!]!;
}

/**
 * A duration in words, its largest whole unit: `1h`, `90m`, `7d`, `0s`.
 *
 * @param ms Milliseconds.
 * @returns The shortest exact form.
 *
 * @example Durations in words
 * ```ts
 * import { formatDuration } from "./_blobs.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(formatDuration(5_400_000), "90m");
 * ```
 */
export function formatDuration(ms: number): string {
  for (const unit of ["d", "h", "m"]) {
    const size = _UNIT_MS[unit]!;
    if (ms >= size && ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${Math.round(ms / 1000)}s`;
}

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
  /** The newest modification time of each digest's files (blob and twins), ms. */
  modified: Map<string, number>;
  /** Whether the trash folder (`.trash`) is there. */
  trash: boolean;
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
    modified: new Map(),
    trash: false,
    unknown: [],
  };
  const blobs: [string, number][] = [];
  const seen = (hex: string, mtimeMs: number) =>
    listing.modified.set(
      hex,
      Math.max(mtimeMs, listing.modified.get(hex) ?? -Infinity),
    );
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
        const info = await fs().lstat(join(dir, e.name));
        blobs.push([e.name, info.size]);
        seen(e.name, info.mtimeMs);
      } else if (twin !== null && !e.isDirectory) {
        const names = listing.twins.get(twin[1]!) ?? [];
        listing.twins.set(twin[1]!, [...names, e.name].sort());
        seen(twin[1]!, (await fs().lstat(join(dir, e.name))).mtimeMs);
      } else if (e.name === TRASH_FOLDER && e.isDirectory) listing.trash = true;
      else if (_TEMP.test(e.name)) listing.temp++;
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
  /** The newest modification time of those files, ms. */
  modifiedMs: number;
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
    out.push({ hex, bytes, files, modifiedMs: listing.modified.get(hex) ?? 0 });
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
 * Every `*.jsonl` under `dir`, recursively, sorted. Symbolic links are
 * followed, each real folder walked once, so a link loop cannot trap the
 * walk.
 *
 * @param dir The folder.
 * @returns The paths (`dir` joined with each file's relative path).
 * @throws {Error} When `dir` does not exist (`ENOENT`) or cannot be read.
 */
export function findSessionFiles(dir: string): Promise<string[]> {
  return walkFiles(dir, { match: (name) => name.endsWith(".jsonl") });
}
