/**
 * The byte side of `generate.ts`: lines encoded straight into ~1 MiB chunks
 * and handed to the sink, one write in flight at a time.
 *
 * @module
 */

import type { _Config } from "./_config.ts";
import type { _Body } from "./_text.ts";
import type { TranscriptSink } from "./_options.ts";

/** Bytes handed to the sink at a time. */
const CHUNK_BYTES = 1 << 20;
/** `"\n"` inside a JSON string. */
const _ESCAPED_NEWLINE = new TextEncoder().encode("\\n");

/** A sink as the chunk writer sees it. */
export interface _Port {
  /**
   * Whether the sink may keep a chunk after its write settles: a stream's
   * chunks are handed over, while a writer must not keep `p` (the
   * `Deno.Writer` contract), so its two buffers can be reused.
   */
  keepsChunks: boolean;
  write(chunk: Uint8Array): Promise<void>;
  close(): Promise<void>;
  abort(reason: unknown): Promise<void>;
}

/** Wraps a web stream or a writer object. */
export function _port(sink: TranscriptSink): _Port {
  if (sink instanceof WritableStream) {
    const writer = sink.getWriter();
    return {
      keepsChunks: true,
      write: (chunk) => writer.write(chunk),
      close: () => writer.close(),
      abort: async (reason) => {
        // The generation error is what the caller needs; a failing abort
        // (a stream already errored) adds nothing to it.
        await writer.abort(reason).catch(() => undefined);
      },
    };
  }
  return {
    keepsChunks: false,
    async write(chunk) {
      // FsFile.write may accept fewer bytes than given: loop on the rest.
      for (let at = 0; at < chunk.length;) {
        const n = await sink.write(chunk.subarray(at));
        if (!(n > 0)) {
          throw new Error(
            `Cannot write the transcript: the sink accepted ${n} bytes`,
          );
        }
        at += n;
      }
    },
    close: () => Promise.resolve(),
    abort: () => Promise.resolve(),
  };
}

/** Encodes lines straight into ~1 MiB chunks with one TextEncoder. */
export class _ChunkWriter {
  readonly #port: _Port;
  readonly #config: _Config;
  readonly #encoder = new TextEncoder();
  #buf = new Uint8Array(CHUNK_BYTES);
  /** The buffer of the write in flight, reused next when the sink keeps no chunk. */
  #spare: Uint8Array<ArrayBuffer> | undefined;
  #pos = 0;
  #flushed = 0;
  #pending: Promise<void> = Promise.resolve();

  constructor(port: _Port, config: _Config) {
    this.#port = port;
    this.#config = config;
  }

  /** Bytes written so far, including those not yet handed to the sink. */
  get bytes(): number {
    return this.#flushed + this.#pos;
  }

  /** Append `text` and a `"\n"`. */
  async line(text: string): Promise<void> {
    await this.text(text);
    if (this.#pos === this.#buf.length) await this.flush();
    this.#buf[this.#pos++] = 0x0a;
    if (this.#pos >= CHUNK_BYTES - 64) await this.flush();
  }

  /** Append the pieces of a tool output as the inside of a JSON string, joined by an escaped `"\n"`. */
  async body(pieces: _Body): Promise<void> {
    for (let i = 0; i < pieces.length; i++) {
      if (i > 0) await this.#bytes(_ESCAPED_NEWLINE);
      const piece = pieces[i]!;
      if (typeof piece === "string") {
        await this.text(JSON.stringify(piece).slice(1, -1));
      } else {
        await this.#bytes(piece);
      }
    }
  }

  /** Append `text` as UTF-8. */
  async text(text: string): Promise<void> {
    let rest = text;
    for (;;) {
      const { read, written } = this.#encoder.encodeInto(
        rest,
        this.#buf.subarray(this.#pos),
      );
      this.#pos += written;
      if (read === rest.length) break;
      // encodeInto stops on a code point boundary, so the slice is whole.
      rest = rest.slice(read);
      await this.flush();
    }
  }

  async #bytes(bytes: Uint8Array): Promise<void> {
    let rest = bytes;
    while (rest.length > this.#buf.length - this.#pos) {
      const room = this.#buf.length - this.#pos;
      this.#buf.set(rest.subarray(0, room), this.#pos);
      this.#pos += room;
      rest = rest.subarray(room);
      await this.flush();
    }
    this.#buf.set(rest, this.#pos);
    this.#pos += rest.length;
  }

  /**
   * Hand the buffered bytes to the sink and go on encoding while they are
   * written: one write is in flight at most. The next buffer is the one
   * whose write just settled, or a fresh one when the sink may keep chunks
   * (reusing buffers also spares the page faults of fresh memory).
   */
  async flush(): Promise<void> {
    if (this.#pos === 0) return;
    const full = this.#buf;
    const chunk = full.subarray(0, this.#pos);
    this.#flushed += this.#pos;
    this.#pos = 0;
    await this.#pending;
    this.#buf = this.#spare ?? new Uint8Array(CHUNK_BYTES);
    this.#spare = this.#port.keepsChunks ? undefined : full;
    const written = this.#flushed;
    const { onProgress, size } = this.#config;
    this.#pending = this.#port.write(chunk).then(() =>
      onProgress?.(written, size)
    );
    // Marks the rejection as handled until the next flush or drain awaits
    // #pending, which rethrows it: a failed write is never lost.
    this.#pending.catch(() => undefined);
  }

  /** Flush, then wait for the last write. */
  async drain(): Promise<void> {
    await this.flush();
    await this.#pending;
  }
}
