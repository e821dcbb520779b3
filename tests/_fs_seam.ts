/** Shared by the tests that swap the private filesystem seam. */
import { type Fs, setSeam } from "../src/fs/_seam.ts";

/** Runs `fn` with `fs` as the filesystem seam, then restores the previous one. */
export async function withFs<T>(fs: Fs, fn: () => Promise<T>): Promise<T> {
  const restore = setSeam(fs);
  try {
    return await fn();
  } finally {
    restore();
  }
}
