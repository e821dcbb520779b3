/**
 * What a session holds in memory: the loaded entries (the window, or the
 * whole file), the leaf, the labels and the blobs, and the context built
 * from them.
 *
 * @module
 */

import {
  type BuildContextOptions,
  buildContextOver,
  type SessionContext,
} from "../context/context.ts";
import { collectLabels } from "../context/labels.ts";
import { foldSettings, type Settings } from "../context/settings.ts";
import { pathTo, resolveLeaf } from "../context/tree.ts";
import type { SessionEntry } from "../format/entries.ts";
import { branchMarkerTarget } from "../format/_branch_marker.ts";
import { headerTitleSource } from "../format/header.ts";
import type { TitleSource } from "../format/title_slot.ts";
import type { LoadedSession } from "../read/_records.ts";
import type { ResolvedBlobs } from "./_blobs.ts";
import type { WindowStats } from "./options.ts";

/** The point an append can be taken back to. */
export interface ViewMark {
  /** Entries held before the append. */
  length: number;
  /** The leaf before the append. */
  leafId: string | null;
}

/** The loaded entries of a session and what is derived from them. */
export class SessionView {
  #loaded: LoadedSession;
  #blobs: ResolvedBlobs;
  #leafId: string | null;
  /** Entries appended since the file was read: their labels go on top of the window's. */
  #appendedFrom: number;

  constructor(loaded: LoadedSession, blobs: ResolvedBlobs) {
    this.#loaded = loaded;
    this.#blobs = blobs;
    this.#leafId = _leafOf(loaded);
    this.#appendedFrom = loaded.entries.length;
  }

  /** What was read (and appended since). */
  get loaded(): LoadedSession {
    return this.#loaded;
  }

  /** Blobs read or written, by digest. */
  get blobs(): ResolvedBlobs {
    return this.#blobs;
  }

  /** The leaf. */
  get leafId(): string | null {
    return this.#leafId;
  }

  /** The title: the slot's when there is a slot, else the header's. */
  get title(): string | undefined {
    const slot = this.#loaded.slot;
    if (slot !== undefined) {
      return slot.title.length > 0 ? slot.title : undefined;
    }
    const t = this.#loaded.header.title;
    return typeof t === "string" && t.length > 0 ? t : undefined;
  }

  /** Who set the title: the slot's source when there is a slot, else the header's. */
  get titleSource(): TitleSource | undefined {
    const slot = this.#loaded.slot;
    return slot !== undefined
      ? slot.source
      : headerTitleSource(this.#loaded.header);
  }

  /** Replace what is held by a new read of the file. */
  replace(loaded: LoadedSession, blobs: ResolvedBlobs): void {
    this.#loaded = loaded;
    this.#blobs = blobs;
    this.#leafId = _leafOf(loaded);
    this.#appendedFrom = loaded.entries.length;
  }

  /** Hold a new entry; it becomes the leaf (or moves it, for a branch marker). */
  add(entry: SessionEntry): void {
    this.#loaded.entries.push(entry);
    this.#loaded.byId.set(entry.id, entry);
    this.#leafId = branchMarkerTarget(entry) ?? entry.id;
  }

  /** Where a later {@linkcode rollBack} returns to. */
  mark(): ViewMark {
    return { length: this.#loaded.entries.length, leafId: this.#leafId };
  }

  /** Drop the entries added since `mark`. */
  rollBack(mark: ViewMark): void {
    for (const e of this.#loaded.entries.splice(mark.length)) {
      this.#loaded.byId.delete(e.id);
    }
    this.#leafId = mark.leafId;
  }

  /** Labels in effect over the whole file. */
  labels(): Record<string, string> {
    const base = this.#loaded.base;
    if (base === undefined) return collectLabels(this.#loaded.entries);
    const appended = this.#loaded.entries.slice(this.#appendedFrom);
    return collectLabels(appended, base.labels);
  }

  /** The settings in effect at the leaf. */
  settings(): Settings {
    const path = pathTo(this.#leafId, this.#loaded.byId).entries;
    return foldSettings(path, this.#loaded.base?.settings);
  }

  /** The context of the path ending at `leafId` (default: the leaf). */
  context(
    leafId: string | null | undefined,
    options: BuildContextOptions,
  ): SessionContext {
    const { images, texts } = this.#blobs;
    const loaded = this.#loaded;
    const base = loaded.base;
    return buildContextOver(
      loaded.entries,
      loaded.byId,
      leafId === undefined ? this.#leafId : leafId,
      {
        resolveBlob: (hex) => images.get(hex),
        resolveText: (hex) => texts.get(hex),
        ...options,
      },
      base === undefined ? undefined : { ...base, labels: this.labels() },
    );
  }

  /** What the read kept and looked at. */
  stats(): WindowStats {
    const { bytes, size } = this.#loaded;
    return {
      retained: this.#loaded.entries.length,
      seen: this.#loaded.seen,
      windowed: bytes < size,
      bytesRead: bytes,
    };
  }
}

function _leafOf(loaded: LoadedSession): string | null {
  return loaded.leafId !== undefined
    ? loaded.leafId
    : resolveLeaf(loaded.entries, loaded.byId);
}
