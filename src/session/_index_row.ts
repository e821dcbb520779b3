/**
 * A session that wrote to its file brings its row of the data dir's index
 * up to date when it is closed (reading only what it appended), so a list
 * or a reopen right after finds the row current. A data dir without an
 * index is left without one; an index that cannot be used is a warning.
 *
 * @module
 */

import { IndexStore } from "../store/index/_index_store.ts";
import { refreshOne } from "../store/index/_refresh.ts";
import type { SessionWriteOptions } from "./options.ts";

/**
 * Update the row of `path` in the index of the data dir that holds it.
 *
 * @param path The session file (absolute).
 * @param options The session's options (`index: false` skips this).
 */
export async function updateIndexRow(
  path: string,
  options: SessionWriteOptions,
): Promise<void> {
  if (options.index === false) return;
  const warn = options.onWarning ?? ((m: string) => console.warn(m));
  try {
    const dataDir = await IndexStore.dataDirOf(path);
    if (dataDir === undefined) return;
    const index = await IndexStore.tryOpen(dataDir, {
      create: false,
      onWarning: warn,
    });
    if (index === undefined) return;
    try {
      await refreshOne(index, path);
    } finally {
      index.close();
    }
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    warn(`Cannot update the session index for "${path}": ${why}`);
  }
}
