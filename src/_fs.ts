/**
 * The filesystem seam: every filesystem call the store makes goes through
 * {@linkcode fs}, and this is the one module that knows the runtime. It is
 * asynchronous only, and small on purpose. Two implementations fill the
 * same {@linkcode Fs}, and {@linkcode realFs} picks one at import: Deno's
 * (`src/_fs_deno.ts`, the `Deno` namespace) where Deno is the runtime, else
 * one over `node:fs/promises` for Node and Bun (`src/_fs_node.ts`).
 *
 * Tests swap it the same way to make a write come back short, a disk run
 * full, or a crash fall between a write and a rename:
 *
 * ```ts ignore
 * const restore = setFs({ ...realFs, rename: () => Promise.reject(new Error("crash")) });
 * try { ... } finally { restore(); }
 * ```
 *
 * Errors are the runtime's own (Deno's `Deno.errors.*`, Node's `Error`s),
 * each with its POSIX `code` (`ENOENT`, `EEXIST`, ...): the one thing all
 * runtimes share, so code elsewhere asks {@linkcode isNotFound}
 * and {@linkcode errorCode}, never a runtime's error class. Never exported
 * from `mod.ts`.
 *
 * @module
 */

import { denoFs } from "./_fs_deno.ts";
import { nodeFs } from "./_fs_node.ts";
import type { FileInfo, Fs } from "./_fs_types.ts";

export type {
  DirEntry,
  ErrorCode,
  FileHandle,
  FileInfo,
  Fs,
  FsEvents,
  OpenOptions,
} from "./_fs_types.ts";

/**
 * The runtime's real filesystem, picked once at import: the `Deno`
 * namespace's where Deno is the runtime, else `node:fs/promises` (Node, Bun).
 */
export const realFs: Fs = "Deno" in globalThis ? denoFs() : nodeFs;

let _current: Fs = realFs;

/** The filesystem in use: {@linkcode realFs} unless it was swapped. */
export function fs(): Fs {
  return _current;
}

/**
 * Use `next` for every filesystem call until the returned function is called.
 *
 * @param next The replacement, typically `{ ...realFs, <one faulty call> }`.
 * @returns A function that restores the filesystem in use before this call.
 */
export function setFs(next: Fs): () => void {
  const previous = _current;
  _current = next;
  return () => {
    _current = previous;
  };
}

/**
 * The POSIX code of a filesystem error (`ENOENT`, `EEXIST`, ...).
 *
 * @param err What was thrown.
 * @returns Its code, or undefined.
 */
export function errorCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/**
 * Whether an error says nothing is at the path.
 *
 * @param err What was thrown.
 * @returns True for `ENOENT`.
 */
export function isNotFound(err: unknown): boolean {
  return errorCode(err) === "ENOENT";
}

/** Deno's error classes (none elsewhere): some, as `NotCapable`, carry no `code`. */
const _DENO_ERRORS: ReadonlySet<unknown> = new Set(
  Object.values(
    (globalThis as { Deno?: { errors?: object } }).Deno?.errors ?? {},
  ),
);

/**
 * Whether an error comes from the OS, not from the store's own checks: one
 * with an errno `code` (`EIO`, ...), or one of Deno's classes.
 *
 * @param err What was thrown.
 * @returns True for an OS error.
 */
export function isOsError(err: unknown): boolean {
  return errorCode(err) !== undefined ||
    (err instanceof Error && _DENO_ERRORS.has(err.constructor));
}

/**
 * Whether an error says this process may not look at the path: `EACCES`,
 * `EPERM`, or a runtime's sandbox refusing (Deno's permissions throw a
 * `NotCapable` that carries no code).
 *
 * @param err What was thrown.
 * @returns True for a refusal.
 */
export function isDenied(err: unknown): boolean {
  const code = errorCode(err);
  return code === "EACCES" || code === "EPERM" ||
    (err instanceof Error && err.name === "NotCapable");
}

/**
 * A path's metadata, or undefined when nothing is there.
 *
 * @param path The path.
 * @returns Its metadata (links followed), or undefined.
 */
export async function statOrUndefined(
  path: string,
): Promise<FileInfo | undefined> {
  try {
    return await fs().stat(path);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/**
 * A path's own metadata (a link is a link, a dangling one too), or
 * undefined when nothing is there.
 *
 * @param path The path.
 * @returns Its metadata, or undefined.
 */
export async function lstatOrUndefined(
  path: string,
): Promise<FileInfo | undefined> {
  try {
    return await fs().lstat(path);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/**
 * What a path holds, in words, when it is not a regular file: the reason
 * a reader refuses it (opening a FIFO waits for a writer; a device may never
 * end).
 *
 * @param info The path's metadata.
 * @returns `a folder`, `a FIFO (named pipe)`, ..., or undefined for a file.
 */
export function notAFile(info: FileInfo): string | undefined {
  switch (info.kind) {
    case "file":
      return undefined;
    case "directory":
      return "a folder";
    case "symlink":
      return "a symbolic link";
    case "fifo":
      return "a FIFO (named pipe)";
    case "socket":
      return "a socket";
    case "char-device":
      return "a character device";
    default:
      return "a block device";
  }
}
