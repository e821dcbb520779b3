/**
 * `exportSession`: a session as a document people can read, share and
 * archive (Markdown, or self-contained HTML pages).
 *
 * @module
 */

import { basename, dirname, extname, join, resolve } from "node:path";
import type { LoadIssueKind } from "../format/issues.ts";
import { BlobStore } from "../store/blob_store.ts";
import { findDataDir } from "../store/data_dir.ts";
import { Assets } from "./_assets.ts";
import type { ExportJob } from "./_document.ts";
import { files, Pages, refuseSession } from "./_files.ts";

/** Options for {@linkcode exportSession}. */
export interface ExportOptions {
  /**
   * `md` (Markdown) or `html` (self-contained pages). Default: from `out`'s
   * extension (`.md`, `.markdown`), else `html`.
   */
  format?: "md" | "html";
  /**
   * The file to write (the first page). Default: the session's name with
   * the format's extension, in the current directory. HTML pages after the
   * first are `<stem>-2.html` …; images go to `<stem>-files/`. Never the
   * session's own file, by any name (a link to it is refused too).
   */
  out?: string;
  /**
   * The whole tree instead of the active branch: every branch nested under
   * its branch point, the active path marked. Reads the whole file.
   */
  tree?: boolean;
  /** Only the last N turns of the active branch (a turn starts at a user message). */
  last?: number;
  /**
   * The branch as it was at this entry: the path from the root to it, as
   * if it were the leaf (reads the whole file). Not with `tree`.
   */
  at?: string;
  /** Embed images as data URLs instead of writing them beside the export. */
  inlineImages?: boolean;
  /** Where `blobs/` lives. Default: the nearest ancestor of the file holding one. */
  dataDir?: string;
  /** The most bytes an HTML page holds before the next begins. Default 5 MiB. */
  pageBytes?: number;
  /**
   * Called as the work goes on, for a progress bar: `done` of `total`
   * messages rendered (the active branch), or bytes read (a tree).
   */
  onProgress?: (
    progress: { done: number; total: number; unit: "messages" | "bytes" },
  ) => void;
}

/** What {@linkcode exportSession} wrote. */
export interface ExportResult {
  /** The format written: `md` or `html`. */
  format: "md" | "html";
  /** The files written, in reading order: the pages, or the Markdown file. */
  files: string[];
  /** Their bytes in all (images not counted). */
  bytes: number;
  /** How many pages (1 for Markdown). */
  pages: number;
  /** The images shown and not shown. */
  images: {
    /** Image files written beside the export (each distinct image once). */
    files: number;
    /** Images embedded as data URLs. */
    inlined: number;
    /** Images not shown: a missing or damaged blob, a type not shown. */
    missing: number;
    /** The folder the files are in, or null when none was written. */
    folder: string | null;
  };
  /** Messages exported. */
  messages: number;
  /** Entries read: the window (the active branch) or the file (a tree). */
  entries: number;
  /** Branches shown off the active path (`tree` only). */
  branches: number;
  /** Damage read around, by kind (never the lines' content). */
  issues: { kind: LoadIssueKind; count: number }[];
}

/** Pages of HTML are split past this size (5 MiB). */
const _PAGE_BYTES = 5 * 1024 * 1024;
/** No page is allowed smaller: the frame alone is a few KiB. */
const _MIN_PAGE_BYTES = 32 * 1024;

/**
 * Export a session for people to read. By default the active branch as it
 * happened (from a compaction's summary and kept window on, as the context
 * has it, but with the aborted and failed turns the context's hygiene drops,
 * and model changes as notes; opened windowed: memory is the window's); what
 * the model is given on resume is `cli context`. `tree` renders the whole
 * file. HTML is
 * one self-contained page (no script, no request, every string from the
 * session escaped), split into linked pages past `pageBytes`. Images are
 * written beside the export (`<stem>-files/<sha256>.<ext>`) or embedded, and
 * only when their bytes are a PNG, JPEG, GIF or WebP image; a missing blob is
 * a placeholder. Damage the loader reads around is counted in the footer.
 * Every file is written 0600 (folders made 0700) whatever the umask,
 * through a temp file renamed into place once whole: a link at `out` is
 * replaced, not written through, and the session is never replaced.
 *
 * @example The active branch of a fixture, as HTML and as Markdown
 * ```ts
 * import { exportSession } from "@xdev/session";
 * import { equal, ok } from "node:assert/strict";
 *
 * const session = new URL("../../fixtures/omp/s1-main.jsonl", import.meta.url);
 * const dir = await Deno.makeTempDir();
 * try {
 *   const html = await exportSession(session.pathname, { out: `${dir}/s1.html` });
 *   equal(html.messages, 19);
 *   equal(html.pages, 1);
 *   equal(html.images.files, 1);
 *   ok((await Deno.readTextFile(`${dir}/s1.html`)).startsWith("<!doctype html>"));
 *
 *   const md = await exportSession(session.pathname, {
 *     out: `${dir}/s1.md`,
 *     last: 1,
 *   });
 *   equal(md.format, "md");
 *   ok((await Deno.readTextFile(`${dir}/s1.md`)).includes("## Turn "));
 * } finally {
 *   await Deno.remove(dir, { recursive: true });
 * }
 * ```
 *
 * @param path The session file.
 * @param options Format, output, scope, images.
 * @returns What was written.
 * @throws {TypeError} For options that do not go together, or an output
 * that would overwrite the session (the same file by device and inode: a
 * symbolic or hard link to it, a path through a linked folder).
 * @throws {RangeError} For a `last` or `pageBytes` out of range.
 * @throws {SessionSyntaxError} When the session's header cannot be read.
 * @throws {Deno.errors.NotFound} When the file does not exist.
 */
export async function exportSession(
  path: string,
  options: ExportOptions = {},
): Promise<ExportResult> {
  if (options.at !== undefined && options.tree === true) {
    throw new TypeError(
      `Cannot export "${path}": at and tree exclude each other`,
    );
  }
  const name = _format(path, options);
  const out = resolve(
    options.out ?? `${basename(path, extname(path))}.${name}`,
  );
  if (out === resolve(path)) {
    throw new TypeError(
      `Cannot export "${path}": the output would overwrite the session`,
    );
  }
  // The session by another name (a link, a linked folder) is refused too,
  // and every page and image is checked again as it is put in place.
  const session = await files.stat(path);
  if (session.kind !== "file") {
    throw new TypeError(`Cannot export "${path}": not a regular file`);
  }
  await refuseSession(out, session);
  const folder = dirname(out);
  await files.makeFolder(folder);
  const images = join(folder, `${basename(out, extname(out))}-files`);
  const dataDir = options.dataDir ?? await findDataDir(path);
  const assets = new Assets({
    inline: options.inlineImages === true,
    folder: images,
    blobs: dataDir === undefined
      ? undefined
      : new BlobStore(join(dataDir, "blobs")),
    session,
  });
  // The renderers (Markdown, highlighting, diffs) load with the first
  // export, not with the module: a harness that never exports never pays.
  const render = await import("./_export_job.ts");
  const format = await render.pageFormat(name);
  const limit = name === "md" ? Infinity : options.pageBytes ?? _PAGE_BYTES;
  const job: ExportJob = {
    path,
    dataDir,
    folder,
    format,
    assets,
    open: (meta) => new Pages(out, format, meta, limit, session),
    progress: (done, total, unit) =>
      options.onProgress?.({ done, total, unit }),
  };
  const { written, ...counts } = options.tree === true
    ? await render.exportTree(job)
    : await render.exportActive(job, options.last, options.at);
  return {
    format: name,
    files: written.files,
    bytes: written.bytes,
    pages: written.files.length,
    images: {
      files: assets.files,
      inlined: assets.inlined,
      missing: assets.missing,
      folder: assets.files > 0 ? images : null,
    },
    ...counts, // messages, entries, branches, issues: in this order
  };
}

/** The format, once the options are checked. */
function _format(path: string, options: ExportOptions): "md" | "html" {
  const { format, last, pageBytes } = options;
  if (format !== undefined && format !== "md" && format !== "html") {
    throw new TypeError(
      `Cannot export "${path}": the format is neither md nor html`,
    );
  }
  if (last !== undefined && options.tree === true) {
    throw new TypeError(
      `Cannot export "${path}": the last turns and the whole tree exclude each other`,
    );
  }
  if (last !== undefined && (!Number.isSafeInteger(last) || last < 1)) {
    throw new RangeError(
      `Cannot export "${path}": the number of turns is not a positive integer`,
    );
  }
  if (
    pageBytes !== undefined &&
    (!Number.isSafeInteger(pageBytes) || pageBytes < _MIN_PAGE_BYTES)
  ) {
    throw new RangeError(
      `Cannot export "${path}": a page must hold at least ${_MIN_PAGE_BYTES} bytes`,
    );
  }
  if (format !== undefined) return format;
  const ext = extname(options.out ?? "").toLowerCase();
  return ext === ".md" || ext === ".markdown" ? "md" : "html";
}
