/** Shared by the tests that swap the private filesystem seam. */
import { type Fs, realFs, setSeam } from "../src/fs/_seam.ts";

/** Runs `fn` with `fs` as the filesystem seam, then restores the previous one. */
export async function withFs<T>(fs: Fs, fn: () => Promise<T>): Promise<T> {
  const restore = setSeam(fs);
  try {
    return await fn();
  } finally {
    restore();
  }
}

/**
 * The real filesystem, but a file opened synchronously cannot read: no
 * snapshot of a small file is taken (`takeSnapshot`) and no head is read
 * synchronously; each reader opens the file through the asynchronous calls,
 * as a large file's readers do.
 */
export const noSnapshots: Fs = {
  ...realFs,
  openSync: (path, options) => {
    const file = realFs.openSync(path, options);
    return {
      writeSync: (p) => file.writeSync(p),
      statSync: () => file.statSync(),
      tryLockSync: (exclusive) => file.tryLockSync(exclusive),
      unlockSync: () => file.unlockSync(),
      close: () => file.close(),
      [Symbol.dispose]: () => file.close(),
    };
  },
};

/** The real filesystem, recording each file opened in `opened`. */
export function recording(opened: string[]): Fs {
  return {
    ...realFs,
    openHandle: (path, options) => {
      opened.push(path);
      return realFs.openHandle(path, options);
    },
    openSync: (path, options) => {
      opened.push(path);
      return realFs.openSync(path, options);
    },
  };
}
