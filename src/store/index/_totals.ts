/**
 * The `totals` facet: each session row's token and cost totals, summed
 * over every model call its file records (branches abandoned included: they
 * were paid for).
 *
 * @module
 */

import type { DatabaseSync } from "node:sqlite";
import { prepared } from "./_prepared.ts";
import { requestUsage } from "../../format/usage.ts";
import type { FacetFile, FacetLine, IndexFacet } from "./_facets.ts";

const _USAGE = new TextEncoder().encode('"usage"');

/** Token and cost totals in the `sessions` row. */
export const TOTALS_FACET: IndexFacet = {
  name: "totals",
  version: 1,
  schema: [],
  update(
    db: DatabaseSync,
    file: FacetFile,
    lines: readonly FacetLine[],
  ): void {
    let input = 0, output = 0, cacheRead = 0, cacheWrite = 0, cost = 0;
    for (const line of lines) {
      if (!_mentionsUsage(line.bytes)) continue; // most lines: no parse
      const entry = line.entry();
      const usage = entry === undefined ? undefined : requestUsage(entry);
      if (usage === undefined) continue;
      input += usage.input;
      output += usage.output;
      cacheRead += usage.cacheRead;
      cacheWrite += usage.cacheWrite;
      cost += usage.cost ?? 0;
    }
    prepared(
      db,
      `UPDATE sessions SET
         inputTokens = coalesce(inputTokens, 0) + ?,
         outputTokens = coalesce(outputTokens, 0) + ?,
         cacheReadTokens = coalesce(cacheReadTokens, 0) + ?,
         cacheWriteTokens = coalesce(cacheWriteTokens, 0) + ?,
         cost = coalesce(cost, 0) + ?
       WHERE path = ?`,
    ).run(input, output, cacheRead, cacheWrite, cost, file.path);
  },
  forgetAll(db: DatabaseSync): void {
    db.exec(
      `UPDATE sessions SET inputTokens = NULL, outputTokens = NULL,
         cacheReadTokens = NULL, cacheWriteTokens = NULL, cost = NULL`,
    );
  },
  forget(db: DatabaseSync, path: string): void {
    prepared(
      db,
      `UPDATE sessions SET inputTokens = NULL, outputTokens = NULL,
         cacheReadTokens = NULL, cacheWriteTokens = NULL, cost = NULL
       WHERE path = ?`,
    ).run(path);
  },
};

/** Whether the bytes hold `"usage"` (a line without it records no call). */
function _mentionsUsage(bytes: Uint8Array): boolean {
  const first = _USAGE[0]!;
  const last = bytes.length - _USAGE.length;
  for (
    let i = bytes.indexOf(first);
    i !== -1 && i <= last;
    i = bytes.indexOf(first, i + 1)
  ) {
    let j = 1;
    while (j < _USAGE.length && bytes[i + j] === _USAGE[j]) j++;
    if (j === _USAGE.length) return true;
  }
  return false;
}
