/**
 * Renaming a session: the `title_change` entry and the title slot, as one
 * operation.
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
import { rewriteWithSlot } from "../write/_slot_rewrite.ts";
import type { Appender } from "./_appender.ts";
import type { SessionView } from "./_view.ts";

/**
 * Append a `title_change` entry, then overwrite the 256-byte slot in place
 * (a file without a valid slot is rewritten whole, atomically, once).
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
  const [entry] = await appender.append([{
    type: "title_change",
    title: cleaned,
    source: source === "manual" ? "user" : source,
    ...(previous === undefined ? {} : { previousTitle: previous }),
  }], {});
  const slot: TitleSlot = {
    title: cleaned,
    source,
    updatedAt: entry!.timestamp,
  };
  const bytes = marshalTitleSlot(slot);
  const loaded = view.loaded;
  if (appender.onDisk) {
    if (loaded.slotState === "ok") {
      await (await appender.writerFor("rename")).rewriteSlot(bytes);
    } else {
      await appender.dropWriter();
      await rewriteWithSlot(appender.name, bytes, {
        dropFirstLine: loaded.slotState !== "absent",
        ...appender.writerOptions(),
      });
    }
  }
  loaded.slot = slot;
  loaded.slotState = "ok";
  return entry as TitleChangeEntry;
}
