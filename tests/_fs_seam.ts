/** Shared by the tests that swap the private filesystem seam (`src/_fs.ts`). */
import { type FileHandle, type Fs, realFs, setFs } from "../src/_fs.ts";

/** Runs `fn` with `fs` as the filesystem seam, then restores the previous one. */
export async function withFs<T>(
  fs: Fs,
  fn: () => Promise<T>,
): Promise<T> {
  const restore = setFs(fs);
  try {
    return await fn();
  } finally {
    restore();
  }
}

/** A handle of the seam, `file`, with some calls replaced. */
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

/** The real filesystem, recording each file opened in `opened`. */
export function recording(opened: string[]): Fs {
  return {
    ...realFs,
    open: (path, options) => {
      opened.push(path);
      return realFs.open(path, options);
    },
  };
}
