/**
 * An entry's envelope (`type`, `id`, `parentId`) read from the first bytes
 * of a line written envelope first, without parsing the line.
 *
 * @module
 */

import type { Line } from "./_line.ts";

/** The envelope fields a walk over the tree needs. */
export interface Envelope {
  /** The entry's type. */
  type: string;
  /** The entry's id. */
  id: string;
  /** The parent's id, or null for a root. */
  parentId: string | null;
}

const _ENVELOPE =
  /^\{"type":"([^"\\]{1,64})","id":"([^"\\]{1,128})","parentId":(?:null|"([^"\\]{0,128})")[,}]/;
/** Bytes of a line enough to hold any envelope {@linkcode _ENVELOPE} matches. */
const _ENVELOPE_BYTES = 320;
const _utf8 = new TextDecoder("utf-8");

/**
 * The envelope of a line written envelope first (as this library and omp
 * write every entry but omp's `custom` and `custom_message`), or undefined
 * when the line does not start with one.
 *
 * @param bytes The line's bytes.
 * @returns The envelope, or undefined.
 */
export function parseEnvelope(bytes: Uint8Array): Envelope | undefined {
  const m = _ENVELOPE.exec(_utf8.decode(bytes.subarray(0, _ENVELOPE_BYTES)));
  if (m === null) return undefined;
  return { type: m[1]!, id: m[2]!, parentId: m[3] ?? null };
}

/**
 * The id of every entry line of a session file, for minting ids that are
 * unique in the whole file when only its window is in memory. Envelope-first
 * lines are not parsed; the others (omp's `custom` lines) are.
 *
 * @param lines The file's lines after the header.
 * @returns The ids.
 */
export async function scanEntryIds(
  lines: AsyncIterable<Line>,
): Promise<Set<string>> {
  const ids = new Set<string>();
  for await (const line of lines) {
    if (line.bytes.length === 0) continue;
    const env = parseEnvelope(line.bytes);
    if (env !== undefined) {
      ids.add(env.id);
      continue;
    }
    try {
      const value = JSON.parse(_utf8.decode(line.bytes)) as { id?: unknown };
      if (typeof value?.id === "string") ids.add(value.id);
    } catch {
      // Not JSON (damage the loader reports): it holds no id to avoid.
    }
  }
  return ids;
}
