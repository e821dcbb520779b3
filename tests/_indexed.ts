/**
 * A search, a usage report as the tests ask for them, with or without the
 * data dir's session index: through `SessionIndex.search` and
 * `SessionIndex.usageReport` when the data dir has an index (opened, never
 * made) and `index` is not false, else `searchSessions` and `usageReport`,
 * which read the files. The library's old `index` option, as a test helper.
 *
 * @module
 */

import {
  type SearchResult,
  searchSessions,
  SessionIndex,
  type UsageReport,
  usageReport,
  type UsageReportOptions,
} from "../mod.ts";

/** The options of `SessionIndex.search`. */
type IndexSearchOptions = NonNullable<Parameters<SessionIndex["search"]>[1]>;

/** Where a test's search or report goes: the index (default, when the data dir has one) or the files alone. */
export interface Through {
  /** False: the files alone. Default: the index, when the data dir has one (opened, never made). */
  index?: boolean;
  /** Where index warnings go. */
  onWarning?: (message: string) => void;
}

/** The data dir's index, opened (never made), unless `index: false`. */
function existing(
  dataDir: string,
  { index, onWarning }: Through,
): Promise<SessionIndex | undefined> {
  return index === false ? Promise.resolve(undefined) : SessionIndex.tryOpen(
    dataDir,
    { create: false, ...(onWarning === undefined ? {} : { onWarning }) },
  );
}

/** A search through the index (`SessionIndex.search`) when there is one, else `searchSessions`. */
export async function searched(
  dataDir: string,
  query: string,
  options: IndexSearchOptions & Through = {},
): Promise<SearchResult> {
  const { index: _, onWarning: __, ...search } = options;
  using index = await existing(dataDir, options);
  return index === undefined
    ? await searchSessions(dataDir, query, search)
    : await index.search(query, search);
}

/** A usage report through the index (`SessionIndex.usageReport`) when there is one, else `usageReport`. */
export async function reported(
  dataDir: string,
  options: UsageReportOptions & Through = {},
): Promise<UsageReport> {
  const { index: _, onWarning: __, ...report } = options;
  using index = await existing(dataDir, options);
  return index === undefined
    ? await usageReport(dataDir, report)
    : await index.usageReport(report);
}
