/**
 * The blob trash: where gc puts what it takes, `<blobs>/.trash/<run>/`, one
 * folder per gc run, named by its time (`2026-10-01T09-00-00-000Z_<random>`),
 * holding the blob files as they were (`<hex>`, `<hex>.<ext>`, moved by a
 * rename, so their times and bytes are kept). Inside the blobs folder, so
 * the move is a rename on one filesystem; omp's gc and the store read only
 * `<blobs>/<hex>` names there, so neither sees the trash (a reference to a
 * trashed blob reads as missing). A blob leaves it by
 * {@linkcode restoreTrashed} (`cli blobs restore`, or the next gc when a
 * session names it again) or by {@linkcode emptyTrashed} (a gc, once the run
 * is older than its keep period).
 *
 * Manual recovery needs no tool: `mv <blobs>/.trash/*\/<hex>* <blobs>/`.
 *
 * @module
 */

import { toHex } from "../format/_encoding.ts";
import { join } from "node:path";
import { fs, isNotFound, lstatOrUndefined } from "../_fs.ts";
import { makeFolders } from "../write/_files.ts";

/** The trash folder's name inside the blobs folder. */
export const TRASH_FOLDER = ".trash";

const _RUN = /^(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})-(\d{3})Z_[0-9a-f]+$/;
const _HEX_NAME = /^([0-9a-f]{64})(?:\.[a-z0-9]{1,8})?$/;

/**
 * The name of a gc run's trash folder: its time, then random hex.
 *
 * @param nowMs The run's time.
 * @returns `2026-10-01T09-00-00-000Z_<8 hex>`.
 *
 * @example A run's folder
 * ```ts
 * import { trashRunName } from "./_blob_trash.ts";
 * import { match } from "node:assert/strict";
 *
 * match(trashRunName(0), /^1970-01-01T00-00-00-000Z_[0-9a-f]{8}$/);
 * ```
 */
export function trashRunName(nowMs: number): string {
  const stamp = new Date(nowMs).toISOString().replace(/[:.]/g, "-");
  const random = toHex(crypto.getRandomValues(new Uint8Array(4)));
  return `${stamp}_${random}`;
}

/** The time a run's folder name holds, or undefined for any other name. */
function _runTime(name: string): number | undefined {
  const m = _RUN.exec(name);
  if (m === null) return undefined;
  const [, date, h, min, s, ms] = m;
  const t = Date.parse(`${date}T${h}:${min}:${s}.${ms}Z`);
  return Number.isNaN(t) ? undefined : t;
}

/** One blob in the trash. */
export interface TrashedBlob {
  /** The digest. */
  hex: string;
  /** The run's folder name. */
  run: string;
  /** When that run put it there (ms since the epoch). */
  trashedAt: number;
  /** Its files in the run's folder: `<hex>` first when there, then the twins. */
  files: string[];
  /** Their bytes, all told. */
  bytes: number;
}

/** What the trash holds. */
export interface TrashListing {
  /** The blobs, by run (oldest first), then digest. */
  blobs: TrashedBlob[];
  /** Names in the trash (or in a run) that are neither a run nor a blob, left alone. */
  unknown: string[];
}

/**
 * The trash of a blobs folder; an absent one holds nothing.
 *
 * @param blobsDir The blobs folder.
 * @returns Its trashed blobs and anything else found there.
 * @throws {Error} When the trash is there but cannot be read, or is a
 * symbolic link (which could point deletes elsewhere).
 */
export async function listTrash(blobsDir: string): Promise<TrashListing> {
  const trash = join(blobsDir, TRASH_FOLDER);
  const out: TrashListing = { blobs: [], unknown: [] };
  const info = await lstatOrUndefined(trash);
  if (info === undefined) return out;
  if (info.kind !== "directory") {
    throw new Error(`Cannot use the trash "${trash}": it is not a folder`);
  }
  const runs = (await fs().readDir(trash)).map((e) => e.name).sort();
  for (const run of runs) {
    const trashedAt = _runTime(run);
    const dir = join(trash, run);
    if (
      trashedAt === undefined || (await fs().lstat(dir)).kind !== "directory"
    ) {
      out.unknown.push(run);
      continue;
    }
    const byHex = new Map<string, TrashedBlob>();
    for (const e of (await fs().readDir(dir)).sort(_byName)) {
      const hex = _HEX_NAME.exec(e.name)?.[1];
      if (hex === undefined || e.isDirectory) {
        out.unknown.push(`${run}/${e.name}`);
        continue;
      }
      const blob = byHex.get(hex) ??
        { hex, run, trashedAt, files: [], bytes: 0 };
      blob.files.push(e.name);
      blob.bytes += (await fs().lstat(join(dir, e.name))).size;
      byHex.set(hex, blob);
    }
    out.blobs.push(...byHex.values());
  }
  return out;
}

function _byName(a: { name: string }, b: { name: string }): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** How {@linkcode moveToTrash} left a blob. */
export type TrashMove = "moved" | "recent" | "gone";

/**
 * Move one blob's files into a run's trash folder, unless it changed after
 * `cutoffMs`: its times are read again just before the move (a
 * {@linkcode BlobStore.put} since gc listed the folder sets them) and once
 * more after it, from the moved file (a put between that read and the
 * rename); a blob found changed after the move is moved back at once.
 *
 * @param blobsDir The blobs folder.
 * @param run The run's folder name ({@linkcode trashRunName}).
 * @param files The blob's file names (`<hex>` first, then its twins).
 * @param cutoffMs Files changed after this are left alone.
 * @returns `moved`, `recent` (left in place), or `gone` (no file was there).
 * @throws {Error} When a rename fails.
 */
export async function moveToTrash(
  blobsDir: string,
  run: string,
  files: readonly string[],
  cutoffMs: number,
): Promise<TrashMove> {
  const present: string[] = [];
  for (const name of files) {
    const info = await lstatOrUndefined(join(blobsDir, name));
    if (info === undefined) continue;
    if (info.mtimeMs > cutoffMs) return "recent";
    present.push(name);
  }
  if (present.length === 0) return "gone";
  const dir = join(blobsDir, TRASH_FOLDER, run);
  await makeFolders(dir, dir);
  const moved: string[] = [];
  for (const name of present) {
    try {
      await fs().rename(join(blobsDir, name), join(dir, name));
      moved.push(name);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
  for (const name of moved) {
    const info = await lstatOrUndefined(join(dir, name));
    if (info !== undefined && info.mtimeMs > cutoffMs) {
      await _moveBack(blobsDir, dir, moved);
      return "recent";
    }
  }
  return moved.length > 0 ? "moved" : "gone";
}

/**
 * Put a trashed blob back in the blobs folder: each of its files whose name
 * is free there is moved back; one whose name is taken (the blob was
 * stored again) stays, to be emptied later. The run's folder goes when it
 * is left empty.
 *
 * @param blobsDir The blobs folder.
 * @param blob The trashed blob.
 * @returns The files moved back.
 * @throws {Error} When a rename fails.
 */
export async function restoreTrashed(
  blobsDir: string,
  blob: TrashedBlob,
): Promise<string[]> {
  const dir = join(blobsDir, TRASH_FOLDER, blob.run);
  const back = await _moveBack(blobsDir, dir, blob.files);
  await _removeIfEmpty(dir);
  return back;
}

/**
 * Delete a trashed blob's files for good; the run's folder goes when it is
 * left empty.
 *
 * @param blobsDir The blobs folder.
 * @param blob The trashed blob.
 * @throws {Error} When a file cannot be removed.
 */
export async function emptyTrashed(
  blobsDir: string,
  blob: TrashedBlob,
): Promise<void> {
  const dir = join(blobsDir, TRASH_FOLDER, blob.run);
  for (const name of blob.files) {
    try {
      await fs().remove(join(dir, name));
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
  await _removeIfEmpty(dir);
}

/** Move `names` from `dir` back to `blobsDir` where their names are free; those moved. */
async function _moveBack(
  blobsDir: string,
  dir: string,
  names: readonly string[],
): Promise<string[]> {
  const back: string[] = [];
  for (const name of names) {
    const to = join(blobsDir, name);
    if (await lstatOrUndefined(to) !== undefined) continue;
    try {
      await fs().rename(join(dir, name), to);
      back.push(name);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
  return back;
}

async function _removeIfEmpty(dir: string): Promise<void> {
  try {
    if ((await fs().readDir(dir)).length === 0) await fs().remove(dir);
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}
