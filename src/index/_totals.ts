/**
 * The `totals` facet: each session row's token and cost totals, summed
 * over every model call its file records (branches abandoned included: they
 * were paid for).
 *
 * @module
 */

import type { IndexDb } from "./_sqlite.ts";
import { prepared } from "./_prepared.ts";
import { requestUsage } from "../format/usage.ts";
import { holdsUsageKey } from "../usage/_line_call.ts";
import type { FacetFile, FacetLine, IndexFacet } from "./_facets.ts";

/** Token and cost totals in the `sessions` row. */
export const TOTALS_FACET: IndexFacet = {
  name: "totals",
  version: 1,
  schema: [],
  update(
    db: IndexDb,
    file: FacetFile,
    lines: readonly FacetLine[],
  ): void {
    let input = 0, output = 0, cacheRead = 0, cacheWrite = 0, cost = 0;
    for (const line of lines) {
      if (!holdsUsageKey(line.bytes)) continue; // most lines: no parse
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
  forgetAll(db: IndexDb): void {
    db.exec(
      `UPDATE sessions SET inputTokens = NULL, outputTokens = NULL,
         cacheReadTokens = NULL, cacheWriteTokens = NULL, cost = NULL`,
    );
  },
  forget(db: IndexDb, path: string): void {
    prepared(
      db,
      `UPDATE sessions SET inputTokens = NULL, outputTokens = NULL,
         cacheReadTokens = NULL, cacheWriteTokens = NULL, cost = NULL
       WHERE path = ?`,
    ).run(path);
  },
};
