/**
 * The options every session-file writer takes, checked once.
 *
 * @module
 */

import { quote } from "../fs/_errors.ts";
import { TITLE_SLOT_BYTES } from "../format/title_slot.ts";
import { LOCK_WAIT_MS } from "./_lock.ts";
import { NEWLINE } from "./_lines.ts";

/** Options for the writers of a session file. */
export interface SessionWriterOptions {
  /**
   * Flush the data to disk (`syncData`) after every append and every slot
   * rewrite, before the call returns. Default `false`, as omp, which never
   * fsyncs: a process crash then loses nothing that was written (each call
   * hands its bytes to the kernel before returning), but an operating-system
   * crash or a power cut can lose the last lines, or leave the file ending in
   * a torn line, which readers skip and the next append closes with `"\n"`.
   */
  sync?: boolean;
  /**
   * How long to wait for another writer's lock before failing, in
   * milliseconds. Default 500, omp's `SESSION_PUBLISH_LOCK_WAIT_MS`.
   */
  lockTimeoutMs?: number;
}

/** The checked options. */
export interface WriterSettings {
  /** `fdatasync` after each write. */
  sync: boolean;
  /** How long to wait for the lock, in ms. */
  lockTimeoutMs: number;
}

/**
 * Check a path and the writer options.
 *
 * @param path The session file.
 * @param options As given.
 * @param verb What the caller does (`open`, `create`, `rewrite`), for errors.
 * @returns The settings with their defaults.
 * @throws {TypeError} For a path or option of the wrong type.
 * @throws {RangeError} For a negative or infinite `lockTimeoutMs`.
 */
export function writerSettings(
  path: unknown,
  options: SessionWriterOptions,
  verb: string,
): WriterSettings {
  if (typeof path !== "string" || path === "") {
    throw new TypeError(
      `Cannot ${verb} session file: the path is not a non-empty string`,
    );
  }
  const { sync = false, lockTimeoutMs = LOCK_WAIT_MS } = options;
  if (typeof sync !== "boolean") {
    throw new TypeError(`Cannot ${verb} ${quote(path)}: sync is not a boolean`);
  }
  if (typeof lockTimeoutMs !== "number") {
    throw new TypeError(
      `Cannot ${verb} ${quote(path)}: lockTimeoutMs is not a number`,
    );
  }
  if (!Number.isFinite(lockTimeoutMs) || lockTimeoutMs < 0) {
    throw new RangeError(
      `Cannot ${verb} ${
        quote(path)
      }: lockTimeoutMs ${lockTimeoutMs} is not a finite number ≥ 0`,
    );
  }
  return { sync, lockTimeoutMs };
}

/**
 * Check a new line 1: exactly 256 bytes, its only `"\n"` last.
 *
 * @param slot The bytes.
 * @param action What the caller does, for errors.
 * @throws {TypeError} When `slot` is not a `Uint8Array`.
 * @throws {RangeError} When it is not a slot's width and shape.
 */
export function checkSlot(slot: Uint8Array, action: string): void {
  if (!(slot instanceof Uint8Array)) {
    throw new TypeError(`${action}: the slot is not a Uint8Array`);
  }
  if (
    slot.length !== TITLE_SLOT_BYTES ||
    slot.indexOf(NEWLINE) !== TITLE_SLOT_BYTES - 1
  ) {
    throw new RangeError(
      `${action}: the slot is not ${TITLE_SLOT_BYTES} bytes ending in its only "\\n" (got ${slot.length} bytes)`,
    );
  }
}
