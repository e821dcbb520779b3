/**
 * The naive way, the baseline of every benchmark: read the whole file as one
 * string, split it into lines, parse every line, rebuild the context from
 * all entries.
 *
 * @module
 */

import {
  buildSessionContext,
  type SessionContext,
} from "../src/context/context.ts";
import type { SessionEntry } from "../src/format/entries.ts";
import { resolveLeaf } from "../src/context/tree.ts";

/** What the naive loader holds. */
export interface NaiveSession {
  entries: SessionEntry[];
  byId: Map<string, SessionEntry>;
  leafId: string | null;
}

/** Read, split and parse every line. */
export async function naiveOpen(path: string): Promise<NaiveSession> {
  const text = await Deno.readTextFile(path);
  const entries: SessionEntry[] = [];
  const lines = text.split("\n");
  for (let i = 2; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === "") continue;
    try {
      entries.push(JSON.parse(line));
    } catch {
      // the naive way drops damage silently
    }
  }
  const byId = new Map(entries.map((e) => [e.id, e]));
  return { entries, byId, leafId: resolveLeaf(entries, byId) };
}

/** Rebuild the context from every entry. */
export function naiveContext(s: NaiveSession): SessionContext {
  return buildSessionContext(s.entries, s.byId, s.leafId);
}
