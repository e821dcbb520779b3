/**
 * omp's gc lock, `<dataDir>/gc.lock`: a file made with an exclusive create,
 * holding `<pid>\n<ISO time>\n`, removed when the gc is done (omp 18.3.4,
 * `gc-cli.ts`, `withGcLock`). Taking it keeps our gc and omp's from running
 * at once: omp's archive step moves sessions from `sessions/` to
 * `archive/sessions/`, and a scan running beside it could see a session in
 * neither place. A lock whose process is gone (or, without a pid, older than
 * omp's five-minute grace) is stale and taken over, as omp does.
 *
 * @module
 */

import { join } from "node:path";
import { errorCode, fs, isNotFound } from "../_fs.ts";
import { FILE_MODE, writeAll } from "../write/_files.ts";

/** The lock's name in the data dir, omp's. */
export const GC_LOCK = "gc.lock";
/** omp's `GC_WRITE_GRACE_MS`: a lock without a pid older than this is stale. */
const _STALE_MS = 5 * 60_000;

/**
 * Run `work` holding the data dir's gc lock.
 *
 * @param dataDir The data dir (it must exist).
 * @param work What to do under the lock.
 * @returns What `work` returns.
 * @throws {Error} `gc is already running ("<path>" is held by pid N)` when
 * another live process holds it, or what `work` throws.
 *
 * @example Collecting under the lock
 * ```ts
 * import { withGcLock } from "./_gc_lock.ts";
 * import { equal } from "node:assert/strict";
 *
 * const dir = await Deno.makeTempDir();
 * equal(await withGcLock(dir, () => Promise.resolve("done")), "done");
 * await Deno.remove(dir);
 * ```
 */
export async function withGcLock<T>(
  dataDir: string,
  work: () => Promise<T>,
): Promise<T> {
  const path = join(dataDir, GC_LOCK);
  const record = new TextEncoder().encode(
    `${fs().pid}\n${new Date().toISOString()}\n`,
  );
  for (let attempt = 0;; attempt++) {
    try {
      const file = await fs().open(path, {
        write: true,
        createNew: true,
        mode: FILE_MODE,
      });
      try {
        await writeAll(file, record, 0);
      } finally {
        await file.close();
      }
      break;
    } catch (err) {
      if (errorCode(err) !== "EEXIST" || attempt > 0) throw err;
      const held = await _holder(path);
      if (held !== undefined) {
        throw new Error(
          `gc is already running ("${path}" is held${
            held > 0 ? ` by pid ${held}` : ""
          })`,
        );
      }
    }
  }
  try {
    return await work();
  } finally {
    await fs().remove(path).catch((err) => {
      if (!isNotFound(err)) throw err;
    });
  }
}

/**
 * The pid holding the lock (0: a recent lock without one), or undefined when
 * it was stale and has been removed (or was gone already).
 */
async function _holder(path: string): Promise<number | undefined> {
  let text: string;
  let mtimeMs: number;
  try {
    const info = await fs().lstat(path);
    if (info.kind !== "file") {
      throw new Error(`Cannot take "${path}": it is not a file`);
    }
    mtimeMs = info.mtimeMs;
    text = new TextDecoder().decode(await fs().readFile(path));
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
  const [first = "", second = ""] = text.split(/\r?\n/);
  const pid = Number.parseInt(first, 10);
  if (Number.isSafeInteger(pid) && pid > 0) {
    if (await fs().isAlive(pid)) return pid;
  } else {
    const at = Date.parse(second);
    if (Date.now() - (Number.isNaN(at) ? mtimeMs : at) <= _STALE_MS) return 0;
  }
  await fs().remove(path).catch((err) => {
    if (!isNotFound(err)) throw err;
  });
  return undefined;
}
