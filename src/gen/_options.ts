/**
 * What the generator takes and gives: its options, its result, its sink.
 *
 * @module
 */

/** Options of {@linkcode generateTranscript} and {@linkcode generateFile}. */
export interface GenerateOptions {
  /** Target size in bytes; the file ends at the first entry boundary at or past it. */
  size: number;
  /** PRNG seed (default 1): the same options give the same bytes. */
  seed?: number;
  /**
   * Bytes between compactions (default 5 MiB). None falls within half of
   * this before the last compaction.
   */
  compactionEvery?: number;
  /** Fractions of the file at which a reset_boundary is written (default [0.3, 0.7]). */
  resetsAt?: number[];
  /**
   * Where the last compaction falls, in bytes before the end (default
   * 3.5 MiB, so the final window is ~4 MB whatever the size). Set it larger
   * (e.g. 30 MB) to make a big window. Counted back from `size`: the
   * compaction is written at the first tool-round or turn boundary at or
   * past `size - lastCompactionBeforeEnd`. A file no larger than this gets
   * no compaction at all.
   */
  lastCompactionBeforeEnd?: number;
  /** Called with bytes written so far (for a progress bar) after each chunk is written; the last call has the final size. */
  onProgress?: (written: number, total: number) => void;
  /**
   * Branch back before the last compaction at the end (the user branched to
   * an earlier entry): writes a branch_summary whose parentId is an entry
   * before the last compaction (the turn that ended just before its first
   * kept entry), then turns under it for the last min(512 KiB,
   * lastCompactionBeforeEnd / 2) bytes. Default false.
   */
  branchBackAtEnd?: boolean;
  /**
   * Write a settings checkpoint (a `custom` entry of type `xdev.settings`)
   * after every compaction and reset, as this library's writer does, so the
   * windowed loader can stop there. Default true; false gives what omp
   * writes.
   */
  checkpoints?: boolean;
}

/** What {@linkcode generateTranscript} wrote. */
export interface GenerateResult {
  /** File size in bytes. */
  bytes: number;
  /** Entry lines (every line after the title slot and the header). */
  entries: number;
  /** `compaction` entries written. */
  compactions: number;
  /** `reset_boundary` entries written. */
  resets: number;
  /** Byte offset of the last compaction's line, or -1 when there is none. */
  lastCompactionOffset: number;
  /** Id of the last entry: the session's leaf. */
  leafId: string;
}

/** A byte sink: a web stream, or a writer that may accept short counts (`Deno.FsFile`). */
export type TranscriptSink =
  | WritableStream<Uint8Array>
  | { write(p: Uint8Array): Promise<number> };
