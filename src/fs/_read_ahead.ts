/**
 * Reading the next part of a large file while the caller works on this
 * one. A synchronous read from the page cache is a copy the calling thread
 * makes itself: a pass over a 512 MB file spends ~40 % of its time there.
 * An asynchronous read makes the same copy on the runtime's I/O thread,
 * so a pass that asks for its next chunk before it works on this one pays
 * only for whichever is slower, the reads or its work. Each asynchronous
 * read costs a round trip between threads (~40 µs), which a small file
 * does not repay: passes read ahead only in large files, in large chunks.
 *
 * @module
 */

import type { ReaderAt } from "./_read.ts";
import type { FsHandle } from "./_seam.ts";
import { EventLoopTurns } from "./_turns.ts";

/** A {@linkcode ReaderAt} that can start a read and let its caller go on. */
export interface ReadAheadAt extends ReaderAt {
  /**
   * Start reading into `p` at `position`; the {@linkcode ReaderAt.readAt}
   * with the same `p` and `position` gives its count. `p` is not to be
   * touched before that. Any other read waits for it first, as they share
   * the file's cursor; a read ahead not taken is dropped by the next one.
   */
  readAhead(p: Uint8Array, position: number): void;
  /** Wait for a read still under way, as the file must not be closed under it. */
  settle(): Promise<void>;
}

interface _Ahead {
  p: Uint8Array;
  position: number;
  read: Promise<number>;
}

/**
 * Positional reads over an open file that only this reader moves the
 * cursor of: synchronous where the file offers them (the event loop gets
 * a turn every ~20 ms), and asynchronous reads ahead.
 *
 * @param file An open file.
 * @param size The bytes to expose.
 * @param options `turns: false` to give the event loop no turns (the
 * caller gives them); `position`: where the file's cursor is, when known
 * (0 for a file just opened: its first read needs no seek).
 * @returns The reader; the file is not closed by it (call `settle` first).
 *
 * @example A read ahead, then taken
 * ```ts
 * import { readAheadAt } from "./_read_ahead.ts";
 * import assert from "node:assert/strict";
 *
 * const path = await Deno.makeTempFile();
 * await Deno.writeTextFile(path, "hello, world\n");
 * using file = await Deno.open(path);
 * const source = readAheadAt(file, 13);
 * const p = new Uint8Array(5);
 * source.readAhead(p, 7);
 * assert.equal(await source.readAt(p, 7), 5);
 * assert.equal(new TextDecoder().decode(p), "world");
 * await source.settle();
 * await Deno.remove(path);
 * ```
 */
export function readAheadAt(
  file: FsHandle,
  size: number,
  options: { turns?: boolean; position?: number } = {},
): ReadAheadAt {
  let cursor = options.position ?? -1; // where the last read ended; -1 while unknown
  let ahead: _Ahead | undefined;
  const turns = options.turns === false ? undefined : new EventLoopTurns();
  const seek = async (position: number): Promise<void> => {
    if (position === cursor) return;
    cursor = -1;
    if (file.seekSync !== undefined) {
      file.seekSync(position, Deno.SeekMode.Start);
    } else await file.seek(position, Deno.SeekMode.Start);
  };
  return {
    size,
    readAhead(p, position) {
      // The read must start now, not after a microtask: those run only
      // once the caller's work (which it is to overlap) is done.
      const start = (): Promise<number> => {
        let read: Promise<number | null>;
        if (position === cursor) read = file.read(p);
        else if (file.seekSync !== undefined) {
          file.seekSync(position, Deno.SeekMode.Start);
          read = file.read(p);
        } else read = seek(position).then(() => file.read(p));
        cursor = -1;
        return read.then((got) => {
          cursor = position + (got ?? 0);
          return got ?? 0;
        });
      };
      const before = ahead?.read; // not taken: dropped, once it is done
      const read = before === undefined
        ? start()
        : before.catch(() => 0).then(start);
      read.catch(() => {}); // its error goes to the read that takes it
      ahead = { p, position, read };
    },
    async readAt(p, position) {
      const a = ahead;
      if (a !== undefined) {
        if (
          a.position === position && a.p.buffer === p.buffer &&
          a.p.byteOffset === p.byteOffset && a.p.length === p.length
        ) {
          ahead = undefined;
          return await a.read;
        }
        await a.read.catch(() => {}); // its bytes stay for whoever takes them
      }
      if (file.readSync !== undefined) {
        const turn = turns?.give();
        if (turn !== undefined) await turn;
        await seek(position);
        const got = file.readSync(p) ?? 0;
        cursor = position + got;
        return got;
      }
      await seek(position);
      const got = (await file.read(p)) ?? 0;
      cursor = position + got;
      return got;
    },
    async settle() {
      const a = ahead;
      ahead = undefined;
      await a?.read.catch(() => {});
    },
  };
}
