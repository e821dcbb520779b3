/**
 * Files and folders the store creates: their modes, the folders made on the
 * way, and flushing a folder's entries.
 *
 * @module
 */

import { dirname, normalize } from "node:path";
import { quote } from "../fs/_errors.ts";
import { IS_WINDOWS, seam } from "../fs/_seam.ts";

/** Mode of a session file, its lock files, temp files and blobs: the owner only. */
export const FILE_MODE = 0o600;
/** Mode of a folder the store makes. */
export const DIR_MODE = 0o700;

/**
 * Make the missing folders of `dir` (mode 0700 whatever the umask),
 * outermost first; folders that exist are left as they are.
 *
 * @param path The file the folders are for (named in errors).
 * @param dir The folder that must exist.
 * @throws {Error} When something on the way is not a folder.
 */
export async function makeFolders(path: string, dir: string): Promise<void> {
  const fs = seam();
  const missing: string[] = [];
  for (let at = normalize(dir);;) {
    const info = await statOrUndefined(at);
    if (info?.isDirectory) break;
    if (info !== undefined) {
      throw new Error(
        `Cannot create ${quote(path)}: ${quote(at)} is not a folder`,
      );
    }
    missing.push(at);
    const up = dirname(at);
    if (up === at) break;
    at = up;
  }
  for (const folder of missing.reverse()) {
    try {
      await fs.mkdir(folder, { mode: DIR_MODE });
    } catch (err) {
      if (err instanceof Deno.errors.AlreadyExists) continue; // not ours to chmod
      throw err;
    }
    if (!IS_WINDOWS) await fs.chmod(folder, DIR_MODE);
  }
}

/**
 * A path's metadata, or undefined when nothing is there.
 *
 * @param path The path.
 * @returns Its metadata (links followed).
 */
export async function statOrUndefined(
  path: string,
): Promise<Deno.FileInfo | undefined> {
  try {
    return await seam().stat(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    throw err;
  }
}

/**
 * Flush a folder's entries to disk (nothing on Windows), so a rename or a
 * new file in it survives a crash.
 *
 * @param dir The folder.
 */
export async function syncFolder(dir: string): Promise<void> {
  if (IS_WINDOWS) return;
  using folder = await seam().open(dir, { read: true });
  await folder.syncData();
}

/**
 * Whether two stats name the same file (always true where the platform
 * gives no inode).
 *
 * @param a One file's metadata.
 * @param b The other's.
 * @returns Whether inode and device match.
 */
export function sameFile(a: Deno.FileInfo, b: Deno.FileInfo): boolean {
  return a.ino === null || (a.ino === b.ino && a.dev === b.dev);
}
