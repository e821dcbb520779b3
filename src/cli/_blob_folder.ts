/**
 * A data dir's blobs folder read by kind of name (blobs, their typed twins,
 * temp files, anything else), and which of its digests no session names:
 * what `cli blobs` works from.
 *
 * @module
 */

import { join } from "node:path";
import { failure } from "./_failure.ts";

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
    let bytes = listing.blobs.get(hex);
    if (bytes === undefined) {
      bytes = (await Deno.lstat(join(dir, twins[0]!))).size;
    }
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
  let n = 0;
  for (const names of listing.twins.values()) n += names.length;
  return n;
}
