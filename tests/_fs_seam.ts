/**
 * Shared by the tests that swap the private filesystem seams. `withNewFs`
 * and `override` are the new seam's (`src/_fs.ts`); `withFs`, `noSnapshots`,
 * `recording` and `countingReads` are the old seam's (`src/fs/_seam.ts`),
 * kept only for `tests/store/index_test.ts` (the index still reads through
 * that seam): they go with it.
 */
import { type Fs, realFs, setSeam } from "../src/fs/_seam.ts";
import { type FileHandle, type Fs as NewFs, setFs } from "../src/_fs.ts";

/** Runs `fn` with `fs` as the (old) filesystem seam, then restores the previous one. */
export async function withFs<T>(fs: Fs, fn: () => Promise<T>): Promise<T> {
  const restore = setSeam(fs);
  try {
    return await fn();
  } finally {
    restore();
  }
}

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

/**
 * The real filesystem, counting the asynchronous reads of the files it
 * opens: where a file also reads synchronously, those are reads ahead.
 * With `failFrom`, the asynchronous reads from that one on (counting from
 * 1) fail.
 */
export function countingReads(
  count: { reads: number },
  failFrom = Infinity,
): Fs {
  const wrap = <T extends object>(file: T): T =>
    new Proxy(file, {
      get(target, key) {
        const value = Reflect.get(target, key, target);
        if (typeof value !== "function") return value;
        if (key !== "read") return value.bind(target);
        return (p: Uint8Array) => {
          count.reads++;
          if (count.reads >= failFrom) {
            return Promise.reject(new Error("the disk went away"));
          }
          return value.call(target, p);
        };
      },
    });
  return {
    ...realFs,
    openHandle: async (path, options) =>
      wrap(await realFs.openHandle(path, options)),
    openSync: (path, options) => wrap(realFs.openSync(path, options)),
  };
}
