/**
 * The facets every index keeps, in the order a refresh feeds them.
 *
 * @module
 */

import type { IndexFacet } from "./_facets.ts";
import { OVERSIZED_FACET } from "./_oversized_facet.ts";
import { SEARCH_FACET } from "./_search.ts";
import { SUMMARY_FACET } from "./_summary_facet.ts";
import { TOTALS_FACET } from "./_totals.ts";
import { USAGE_FACET } from "./_usage_facet.ts";

/** The facets the index knows. */
export const FACETS: readonly IndexFacet[] = [
  TOTALS_FACET,
  SEARCH_FACET,
  USAGE_FACET,
  OVERSIZED_FACET,
  SUMMARY_FACET,
];
