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
import { exportActive } from "./_active.ts";
import { Assets } from "./_assets.ts";
import { htmlRenderer } from "./_html_page.ts";
import { HtmlPages } from "./_html_pages.ts";
import type { ExportJob } from "./_job.ts";
import { markdownRenderer } from "./_markdown.ts";
import { MarkdownFile } from "./_markdown_file.ts";
import type { ExportMeta } from "./_meta.ts";
import type { PageNav, Renderer, Sink } from "./_renderer.ts";
import { exportTree } from "./_tree.ts";

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
   * first are `<stem>-2.html` …; images go to `<stem>-files/`.
   */
  out?: string;
  /**
   * The whole tree instead of the active branch: every branch nested under
   * its branch point, the active path marked. Reads the whole file.
   */
  tree?: boolean;
  /** Only the last N turns of the active branch (a turn starts at a user message). */
  last?: number;
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
 * Export a session for people to read. By default the active branch as the
 * model sees it on resume (the messages of `buildContext()`, opened
 * windowed: memory is the window's); `tree` renders the whole file. HTML is
 * one self-contained page (no script, no request, every string from the
 * session escaped), split into linked pages past `pageBytes`. Images are
 * written beside the export (`<stem>-files/<sha256>.<ext>`) or embedded, and
 * only when their bytes are a PNG, JPEG, GIF or WebP image; a missing blob is
 * a placeholder. Damage the loader reads around is counted in the footer.
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
 * that would overwrite the session.
 * @throws {RangeError} For a `last` or `pageBytes` out of range.
 * @throws {SessionSyntaxError} When the session's header cannot be read.
 * @throws {Deno.errors.NotFound} When the file does not exist.
 */
export async function exportSession(
  path: string,
  options: ExportOptions = {},
): Promise<ExportResult> {
  const format = _format(path, options);
  const out = resolve(
    options.out ?? `${basename(path, extname(path))}.${format}`,
  );
  if (out === resolve(path)) {
    throw new TypeError(
      `Cannot export "${path}": the output would overwrite the session`,
    );
  }
  const info = await Deno.stat(path);
  if (!info.isFile) {
    throw new TypeError(`Cannot export "${path}": not a regular file`);
  }
  const folder = dirname(out);
  await Deno.mkdir(folder, { recursive: true });
  const stem = basename(out, extname(out));
  const dataDir = options.dataDir ?? await findDataDir(path);
  const assets = new Assets({
    inline: options.inlineImages === true,
    folder: join(folder, `${stem}-files`),
    folderName: `${stem}-files`,
    blobs: dataDir === undefined
      ? undefined
      : new BlobStore(join(dataDir, "blobs")),
  });
  const renderer = format === "md"
    ? markdownRenderer(assets)
    : await htmlRenderer(assets);
  const pageBytes = options.pageBytes ?? _PAGE_BYTES;
  const job: ExportJob = {
    path,
    dataDir,
    renderer,
    assets,
    scratch: folder,
    openSink: (meta) => _openSink(renderer, meta, out, pageBytes),
    progress: (done, total, unit) =>
      options.onProgress?.({ done, total, unit }),
  };
  const r = options.tree === true
    ? await exportTree(job)
    : await exportActive(job, options.last);
  return {
    format,
    files: r.written.files,
    bytes: r.written.bytes,
    pages: r.written.files.length,
    images: {
      files: assets.files,
      inlined: assets.inlined,
      missing: assets.missing,
      folder: assets.files > 0 ? join(folder, `${stem}-files`) : null,
    },
    messages: r.messages,
    entries: r.entries,
    branches: r.branches,
    issues: r.issues,
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

function _openSink(
  renderer: Renderer,
  meta: ExportMeta,
  out: string,
  pageBytes: number,
): Promise<Sink> {
  if (renderer.format === "md") {
    return MarkdownFile.create(
      out,
      renderer.head(meta, { page: 1 }),
      (footer) => renderer.foot(footer, { page: 1 }),
    ).then((sink): Sink => sink);
  }
  const frame = {
    head: (nav: PageNav) => renderer.head(meta, nav),
    foot: renderer.foot,
  };
  return Promise.resolve(new HtmlPages(out, frame, pageBytes));
}
