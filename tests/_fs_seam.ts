/** Shared by the tests that swap the private filesystem seam. */
import { type _Fs, _setFs } from "../src/fs/_seam.ts";

/** Runs `fn` with `fs` as the filesystem seam, then restores the previous one. */
export async function withFs<T>(fs: _Fs, fn: () => Promise<T>): Promise<T> {
  const restore = _setFs(fs);
  try {
    return await fn();
  } finally {
    restore();
  }
}
