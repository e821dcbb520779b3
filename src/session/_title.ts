/**
 * Renaming a session: the `title_change` entry and the title slot, as one
 * operation that happens whole or not at all.
 *
 * @module
 */

import type { TitleChangeEntry } from "../format/entries.ts";
import {
  cleanTitle,
  marshalTitleSlot,
  type TitleSlot,
  type TitleSource,
} from "../format/title_slot.ts";
import type { Appender } from "./_appender.ts";
import type { SessionView } from "./_view.ts";

/**
 * Append a `title_change` entry and write the new title slot, under one
 * lock (`SessionWriter.retitle`: in place when line 1 is a 256-byte slot,
 * else one atomic rewrite of the whole file holding both). When any step
 * fails, the file, the entries in memory and the title are as before.
 *
 * @param appender The session's appender (its queue is held by the caller).
 * @param view The session's view.
 * @param title The new title, cleaned here.
 * @param source Who set it.
 * @returns The entry.
 * @throws {TypeError} When the title is empty once cleaned.
 */
export async function renameSession(
  appender: Appender,
  view: SessionView,
  title: string,
  source: TitleSource,
): Promise<TitleChangeEntry> {
  const cleaned = cleanTitle(title);
  if (cleaned.length === 0) {
    throw new TypeError("Cannot set the title: it is empty once cleaned");
  }
  const previous = view.title;
  const slotAt = (updatedAt: string): TitleSlot => ({
    title: cleaned,
    source,
    updatedAt,
  });
  const [entry] = await appender.append(
    [{
      type: "title_change",
      title: cleaned,
      source: source === "manual" ? "user" : source,
      ...(previous === undefined ? {} : { previousTitle: previous }),
    }],
    {},
    async (writer, lines, [written]) => {
      await writer.retitle(marshalTitleSlot(slotAt(written!.timestamp)), lines);
    },
  );
  const loaded = view.loaded;
  loaded.slot = slotAt(entry!.timestamp);
  loaded.slotState = "ok";
  return entry as TitleChangeEntry;
}
