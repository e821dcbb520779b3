/** Shared by the tests that swap the private filesystem seams. */
import { type FileHandle, type Fs as NewFs, setFs } from "../src/_fs.ts";

/**
 * Runs `fn` with `fs` as the new filesystem seam (`src/_fs.ts`, which the
 * writers use), then restores the previous one. It takes the name
 * `withFs` once the old seam is gone.
 */
export async function withNewFs<T>(
  fs: NewFs,
  fn: () => Promise<T>,
): Promise<T> {
  const restore = setFs(fs);
  try {
    return await fn();
  } finally {
    restore();
  }
}

/** A handle of the new seam, `file`, with some calls replaced. */
export function override(
  file: FileHandle,
  calls: Partial<Omit<FileHandle, typeof Symbol.asyncDispose>>,
): FileHandle {
  return {
    write: (p, position) => file.write(p, position),
    read: (p, position) => file.read(p, position),
    truncate: (size) => file.truncate(size),
    stat: () => file.stat(),
    tryLock: () => file.tryLock(),
    unlock: () => file.unlock(),
    syncData: () => file.syncData(),
    close: () => file.close(),
    [Symbol.asyncDispose]: () => file.close(),
    ...calls,
  };
}
