/**
 * The tree export's scratch file: renderings appended in file order, read
 * back in the tree's order. Writes are gathered and reads go through a
 * window of the file, so a tree that follows file order (most do) costs a
 * few large reads and writes, not one per entry.
 *
 * @module
 */

import { writeAllTo } from "./_renderer.ts";

/** Bytes gathered before a write, and read at once. */
const _BLOCK_BYTES = 1024 * 1024;

/** An open scratch file. */
export class Scratch {
  readonly #file: Deno.FsFile;
  readonly #encoder = new TextEncoder();
  readonly #decoder = new TextDecoder();
  /** Renderings gathered before a write (reused). */
  readonly #out = new Uint8Array(_BLOCK_BYTES);
  #outBytes = 0;
  #end = 0;
  /** A stretch of the file read at once (reused while large enough). */
  #window = new Uint8Array(0);
  #windowBytes = 0;
  #windowAt = 0;

  /**
   * Over a file open for reading and writing, empty.
   *
   * @param file The file.
   */
  constructor(file: Deno.FsFile) {
    this.#file = file;
  }

  /**
   * Append text.
   *
   * @param text A rendering.
   * @returns Where it starts, and its length in bytes.
   */
  async append(text: string): Promise<{ at: number; length: number }> {
    const at = this.#end;
    // A UTF-16 code unit takes at most 3 bytes in UTF-8.
    if (this.#outBytes + text.length * 3 > this.#out.length) await this.flush();
    let length: number;
    if (text.length * 3 > this.#out.length) {
      const bytes = this.#encoder.encode(text);
      await writeAllTo(this.#file, bytes);
      length = bytes.length;
    } else {
      const into = this.#out.subarray(this.#outBytes);
      length = this.#encoder.encodeInto(text, into).written;
      this.#outBytes += length;
    }
    this.#end += length;
    return { at, length };
  }

  /** Write what is gathered. */
  async flush(): Promise<void> {
    if (this.#outBytes === 0) return;
    await writeAllTo(this.#file, this.#out.subarray(0, this.#outBytes));
    this.#outBytes = 0;
  }

  /**
   * Read a rendering back (after {@linkcode Scratch.flush}).
   *
   * @param at Where it starts.
   * @param length Its bytes.
   * @returns The text.
   */
  async read(at: number, length: number): Promise<string> {
    const from = at - this.#windowAt;
    if (from < 0 || from + length > this.#windowBytes) {
      await this.#fill(at, Math.max(length, _BLOCK_BYTES));
    }
    const start = at - this.#windowAt;
    return this.#decoder.decode(this.#window.subarray(start, start + length));
  }

  async #fill(at: number, want: number): Promise<void> {
    const size = Math.min(want, this.#end - at);
    if (this.#window.length < size) this.#window = new Uint8Array(size);
    await this.#file.seek(at, Deno.SeekMode.Start);
    let got = 0;
    while (got < size) {
      const n = await this.#file.read(this.#window.subarray(got, size));
      if (n === null) {
        throw new Error("Cannot export: the scratch file ended early");
      }
      got += n;
    }
    this.#windowBytes = size;
    this.#windowAt = at;
  }
}
