/**
 * What the two formats have in common: a renderer turns messages into
 * fragments, a sink writes fragments to files (one Markdown file, or HTML
 * pages of a bounded size).
 *
 * @module
 */

import type { ContextMessage } from "../context/messages.ts";
import type { ExportFooter, ExportMeta } from "./_meta.ts";

/** Where a page sits among the pages of an export. */
export interface PageNav {
  /** The page's number, from 1. */
  page: number;
  /** The previous page's file name (relative), if any. */
  prev?: string;
  /** The next page's file name (relative), if any. */
  next?: string;
}

/**
 * A block that holds other fragments (a branch of the tree): its opening
 * and closing text, and the opening used again when a page break falls
 * inside it.
 */
export interface Wrapper {
  /** Written before the block's fragments. */
  open: string;
  /** Written after them. */
  close: string;
  /** Written at the top of the next page when a page break falls inside. */
  reopen: string;
}

/** A branch of the tree, as its wrapper describes it. */
export interface BranchInfo {
  /** `branch`: under a branch point; `detached`: its parent is missing. */
  kind: "branch" | "detached";
  /** The time of its first entry (ISO-8601), when valid. */
  time: string | undefined;
}

/** Turns messages into fragments of one format. */
export interface Renderer {
  /** The file extension and format. */
  readonly format: "md" | "html";
  /**
   * The top of a page (the whole document's start for Markdown).
   *
   * @param meta What the header says.
   * @param nav Where the page sits.
   */
  head(meta: ExportMeta, nav: PageNav): string;
  /**
   * The bottom of a page.
   *
   * @param footer The damage, on the last page only.
   * @param nav Where the page sits.
   */
  foot(footer: ExportFooter | undefined, nav: PageNav): string;
  /**
   * The heading of a turn (a turn starts at a user message).
   *
   * @param n Its number, from 1.
   */
  turn(n: number): string;
  /**
   * A message, its images written or embedded on the way.
   *
   * @param m The message.
   */
  message(m: ContextMessage): Promise<string>;
  /**
   * A line of our own about the session (a model change, a reset), escaped.
   *
   * @param text The line.
   */
  note(text: string): string;
  /**
   * The block around a branch of the tree.
   *
   * @param info What it is.
   */
  branch(info: BranchInfo): Wrapper;
}

/** What a sink wrote. */
export interface Written {
  /** The files, in reading order. */
  files: string[];
  /** Their bytes in all. */
  bytes: number;
}

/** Writes fragments to the export's files. */
export interface Sink {
  /**
   * Write a fragment.
   *
   * @param fragment Text in the sink's format.
   */
  write(fragment: string): Promise<void>;
  /**
   * Open a block; the fragments written until {@linkcode Sink.close} are in it.
   *
   * @param wrapper The block.
   */
  open(wrapper: Wrapper): Promise<void>;
  /** Close the innermost open block. */
  close(): Promise<void>;
  /**
   * Close every block, write the last page's footer and close the files.
   *
   * @param footer The damage read around.
   * @returns What was written.
   */
  finish(footer: ExportFooter): Promise<Written>;
  /** Close the files without finishing (after a failure). */
  abort(): Promise<void>;
}

/**
 * Write all of `bytes` to `file`, looping on short writes.
 *
 * @param file An open file.
 * @param bytes The bytes.
 */
export async function writeAllTo(
  file: Deno.FsFile,
  bytes: Uint8Array,
): Promise<void> {
  let rest = bytes;
  while (rest.length > 0) rest = rest.subarray(await file.write(rest));
}
