/**
 * A session file's head (title slot and header) read from its first bytes
 * through an open handle, for the readers that then go their own way: the
 * follower, the tail, the tree.
 *
 * @module
 */

import { type FsHandle, seam } from "../fs/_seam.ts";
import { readFull } from "../fs/_read.ts";
import { HEAD_LINE_MAX_BYTES, parseHead, tryParseHead } from "../read/_head.ts";
import type { Head } from "../read/_head.ts";
import { IssueLog } from "../read/_decode.ts";

/** Bytes read first: a slot and a header fit in far less. */
const _FIRST_BYTES = 16 << 10;

/**
 * Read the head of an open file from its first bytes (16 KiB, then up to
 * two head lines' worth when a header is that long).
 *
 * @param file The open file (its position moves).
 * @param name The file's path, for errors.
 * @param log Where damage in the head goes (a throwaway log by default).
 * @returns The head.
 * @throws {SessionSyntaxError} When the file has no readable header.
 */
export async function readFileHead(
  file: FsHandle,
  name: string,
  log: IssueLog = new IssueLog(),
): Promise<Head> {
  const first = await _readStart(file, _FIRST_BYTES);
  const quiet = new IssueLog();
  const head = tryParseHead(first.bytes, {
    name,
    complete: first.complete,
    log: quiet,
  });
  if (head !== undefined) {
    log.replay(quiet.issues);
    return head;
  }
  const more = await _readStart(file, 2 * HEAD_LINE_MAX_BYTES + 2);
  return parseHead(more.bytes, { name, complete: more.complete, log });
}

async function _readStart(
  file: FsHandle,
  want: number,
): Promise<{ bytes: Uint8Array; complete: boolean }> {
  await file.seek(0, Deno.SeekMode.Start);
  const bytes = new Uint8Array(want);
  const n = await readFull(file, bytes);
  return { bytes: bytes.subarray(0, n), complete: n < want };
}

/**
 * The file's identity, to tell a file replaced under its name (omp's whole
 * rewrite, a rename over it) from the same file grown or cut.
 *
 * @param path The path.
 * @returns Its inode and device (0 where the platform has none), and size.
 */
export async function identity(
  path: string,
): Promise<{ ino: number; dev: number; size: number }> {
  const info = await seam().stat(path);
  return { ino: info.ino ?? 0, dev: info.dev, size: info.size };
}
