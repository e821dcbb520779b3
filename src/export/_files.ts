/**
 * The export's files: the pages it writes, the scratch file a tree export
 * keeps its renderings in, the images beside the pages. Every filesystem
 * call of the export is in this file.
 *
 * @module
 */

import { basename, dirname, extname, join } from "node:path";
import { type FileHandle, type FileInfo, fs, statOrUndefined } from "../_fs.ts";
import { readFull } from "../read/_open.ts";
import { AtomicFile, writeAtomically } from "../write/_atomic_file.ts";
import {
  createFile,
  makeFolders,
  sameFile,
  writeAll,
} from "../write/_files.ts";
import { relativeHref } from "./_escape.ts";
import type { ExportFooter, ExportMeta } from "./_meta.ts";

/** Where a page sits among the pages: its number from 1, its neighbours' relative hrefs. */
export interface PageNav {
  page: number;
  prev?: string;
  next?: string;
}

/**
 * A block holding other fragments (a branch of the tree): its opening and
 * closing text, and the opening again for a page that starts inside it.
 */
export interface Wrapper {
  open: string;
  close: string;
  reopen: string;
}

/** What the pages take of a format: a page's top and bottom, and nesting. */
export interface PageFormat {
  /** The top of a page (the whole document's start for Markdown). */
  head(meta: ExportMeta, nav: PageNav): string;
  /** The bottom of a page; `footer` on the last page only. */
  foot(footer: ExportFooter | undefined, nav: PageNav): string;
  /** A fragment as written inside `depth` open blocks. */
  nest(fragment: string, depth: number): string;
}

/** What the pages wrote: the files, in reading order, and their bytes. */
export interface Written {
  files: string[];
  bytes: number;
}

/** Room kept on each page for its head and foot beyond their measured size. */
const _SLACK_BYTES = 4096;
/** Bytes gathered before a write, and read at once from a scratch file. */
const _BLOCK_BYTES = 1024 * 1024;
const _ENCODER = new TextEncoder();

/**
 * The output of one export: pages of at most `limit` bytes (`x.html`,
 * `x-2.html` …) linked to each other, or with no limit one file (the
 * Markdown export). A page is held until it is full, so its links are
 * known when it is written; without a limit there is nothing to know, and
 * the file is written as the fragments come. A block open across a page
 * break is closed at the bottom of one page and opened again at the top
 * of the next. Each page is written to a temp file (0600) renamed into
 * place once whole, never over the session's own file.
 */
export class Pages implements AsyncDisposable {
  readonly #first: string;
  readonly #format: PageFormat;
  readonly #meta: ExportMeta;
  readonly #limit: number;
  readonly #stack: Wrapper[] = [];
  readonly #written: Written = { files: [], bytes: 0 };
  /** The page's body not yet written. */
  readonly #body = new _Buffer();
  readonly #session: FileInfo;
  #file: AtomicFile | undefined;
  #page = 1;
  #hasContent = false;
  #room: number;

  /**
   * @param path The first page; the others are named after it.
   * @param format The pages' format.
   * @param meta What their header says.
   * @param limit The most bytes a page holds (unless one fragment is
   * larger); `Infinity` for one file.
   * @param session The session's file, which no page may replace.
   */
  constructor(
    path: string,
    format: PageFormat,
    meta: ExportMeta,
    limit: number,
    session: FileInfo,
  ) {
    this.#first = path;
    this.#session = session;
    this.#format = format;
    this.#meta = meta;
    this.#limit = limit;
    this.#room = this.#roomOfPage();
  }

  /** Write a fragment; one that would overflow the page starts the next. */
  async write(fragment: string): Promise<void> {
    const before = this.#body.size;
    const length = this.#body.append(this.#nest(fragment));
    const closing = this.#stack.reduce((n, w) => n + w.close.length, 0);
    if (this.#hasContent && before + length + closing > this.#room) {
      // The fragment starts the next page.
      const bytes = this.#body.view(before).slice();
      this.#body.size = before;
      await this.#turnPage();
      this.#body.put(bytes);
    }
    this.#hasContent = true;
    if (this.#limit === Infinity && this.#body.size >= _BLOCK_BYTES) {
      await this.#drain(false);
    }
  }

  /** Open a block: what is written until {@linkcode Pages.close} is in it. */
  async open(wrapper: Wrapper): Promise<void> {
    await this.write(wrapper.open);
    this.#stack.push(wrapper);
  }

  /** Close the innermost open block (a closing never starts a page). */
  close(): void {
    const wrapper = this.#stack.pop();
    if (wrapper !== undefined) this.#body.append(this.#nest(wrapper.close));
  }

  /** Close every block and write the last page, its footer saying `footer`. */
  async finish(footer: ExportFooter): Promise<Written> {
    while (this.#stack.length > 0) this.close();
    await this.#endPage(false, footer);
    return this.#written;
  }

  /** Remove the temp file of a page left unfinished (after a failure). */
  async [Symbol.asyncDispose](): Promise<void> {
    const file = this.#file;
    this.#file = undefined;
    await file?.[Symbol.asyncDispose]();
  }

  /** The file of page `page`: `x.html` for 1, `x-<page>.html` after. */
  #path(page: number): string {
    if (page === 1) return this.#first;
    const ext = extname(this.#first);
    const stem = basename(this.#first, ext);
    return join(dirname(this.#first), `${stem}-${page}${ext}`);
  }

  #nav(hasNext: boolean): PageNav {
    const nav: PageNav = { page: this.#page };
    const href = (n: number) => relativeHref(basename(this.#path(n)));
    if (this.#page > 1) nav.prev = href(this.#page - 1);
    if (hasNext) nav.next = href(this.#page + 1);
    return nav;
  }

  /** The bytes this page has for fragments, once its frame is counted. */
  #roomOfPage(): number {
    if (this.#limit === Infinity) return Infinity;
    const nav = this.#nav(true);
    const frame = this.#format.head(this.#meta, nav) +
      this.#format.foot(undefined, nav);
    return this.#limit - _ENCODER.encode(frame).length - _SLACK_BYTES;
  }

  /** A fragment as written inside the open blocks. */
  #nest(fragment: string): string {
    return this.#format.nest(fragment, this.#stack.length);
  }

  async #turnPage(): Promise<void> {
    const open = [...this.#stack];
    for (const w of open.toReversed()) this.#body.append(w.close);
    await this.#endPage(true, undefined);
    this.#page++;
    this.#room = this.#roomOfPage();
    this.#hasContent = false;
    for (const w of open) this.#body.append(w.reopen);
  }

  /** Write the body so far, after the page's head if its file is new. */
  async #drain(hasNext: boolean): Promise<void> {
    if (this.#file === undefined) {
      const path = this.#path(this.#page);
      this.#file = await AtomicFile.create(path, _action(path));
      this.#written.files.push(path);
      await this.#writeAll(this.#format.head(this.#meta, this.#nav(hasNext)));
    }
    await this.#writeAll(this.#body.view());
    this.#body.size = 0;
  }

  async #endPage(hasNext: boolean, footer: ExportFooter | undefined) {
    await this.#drain(hasNext);
    await this.#writeAll(this.#format.foot(footer, this.#nav(hasNext)));
    const file = this.#file!;
    await refuseSession(file.target, this.#session);
    await file.publish({ sync: false });
    this.#file = undefined;
  }

  async #writeAll(data: Uint8Array | string): Promise<void> {
    const bytes = typeof data === "string" ? _ENCODER.encode(data) : data;
    await writeAll(this.#file!.file, bytes);
    this.#written.bytes += bytes.length;
  }
}

/**
 * A tree export's scratch file, in the output's folder and removed when
 * disposed: renderings appended in file order, read back in the tree's
 * order. Writes are gathered and reads go through a window of the file, so
 * a tree that follows file order (most do) costs a few large reads and
 * writes, not one per entry.
 */
export class Scratch implements AsyncDisposable {
  readonly #path: string;
  readonly #file: FileHandle;
  readonly #decoder = new TextDecoder();
  /** Renderings not yet written. */
  readonly #pending = new _Buffer();
  #end = 0;
  /** A stretch of the file read at once: its bytes, where, how many. */
  #window = new Uint8Array(0);
  #windowAt = 0;
  #windowBytes = 0;

  private constructor(path: string, file: FileHandle) {
    this.#path = path;
    this.#file = file;
  }

  /** An empty scratch file in `folder`, its name starting with `prefix`. */
  static async create(folder: string, prefix: string): Promise<Scratch> {
    const random = crypto.randomUUID().replaceAll("-", "").slice(0, 12);
    const path = join(folder, `${prefix}${random}.tmp`);
    const file = await createFile(
      path,
      { read: true, write: true },
      `Cannot export to ${JSON.stringify(folder)}`,
    );
    return new Scratch(path, file);
  }

  /** Append a rendering; where it starts, and its length in bytes. */
  async append(text: string): Promise<{ at: number; length: number }> {
    const at = this.#end;
    const length = this.#pending.append(text);
    this.#end += length;
    if (this.#pending.size >= _BLOCK_BYTES) await this.#flush();
    return { at, length };
  }

  /** Read back the rendering at `at`, `length` bytes long. */
  async read(at: number, length: number): Promise<string> {
    await this.#flush();
    const from = at - this.#windowAt;
    if (from < 0 || from + length > this.#windowBytes) {
      // The buffer is kept while it is large enough: one per export, not
      // one per read.
      const size = Math.min(Math.max(length, _BLOCK_BYTES), this.#end - at);
      if (this.#window.length < size) this.#window = new Uint8Array(size);
      this.#windowAt = at;
      this.#windowBytes = size;
      const view = this.#window.subarray(0, size);
      if (await readFull(this.#file, view, at) < size) {
        throw new Error("Cannot export: the scratch file ended early");
      }
    }
    const start = at - this.#windowAt;
    return this.#decoder.decode(this.#window.subarray(start, start + length));
  }

  /** Close the file and remove it. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.#file.close();
    await fs().remove(this.#path);
  }

  async #flush(): Promise<void> {
    if (this.#pending.size === 0) return;
    const view = this.#pending.view();
    await writeAll(this.#file, view, this.#end - view.length);
    this.#pending.size = 0;
  }
}

/**
 * Throw when `path` is the session's file, by any name: a symbolic link
 * to it, a hard link, a path through a linked folder (the same device and
 * inode, where the platform has them).
 *
 * @param path A file the export is about to write.
 * @param session The session's file.
 * @throws {TypeError} When it is the session.
 */
export async function refuseSession(
  path: string,
  session: FileInfo,
): Promise<void> {
  const info = await statOrUndefined(path);
  if (info !== undefined && session.ino !== 0 && sameFile(info, session)) {
    throw new TypeError(
      `Cannot export to ${
        JSON.stringify(path)
      }: the output would overwrite the session`,
    );
  }
}

function _action(path: string): string {
  return `Cannot export to ${JSON.stringify(path)}`;
}

/** The few other calls: a file's metadata, a folder, an image. */
export const files = {
  /** What `path` is (links followed); throws when absent. */
  stat: (path: string): Promise<FileInfo> => fs().stat(path),
  /** Make a folder and its parents (mode 0700), when missing. */
  makeFolder: (path: string): Promise<void> => makeFolders(path, path),
  /**
   * Write a whole file (an image beside the export): 0600, through a temp
   * file renamed into place, never over the session's file.
   */
  async writeFile(
    path: string,
    bytes: Uint8Array,
    session: FileInfo,
  ): Promise<void> {
    await refuseSession(path, session);
    await writeAtomically(path, (out) => writeAll(out, bytes), {
      action: _action(path),
      sync: false,
    });
  },
};

/**
 * Bytes gathered before a write: text is encoded straight into one buffer,
 * grown as needed and reused once written.
 */
class _Buffer {
  #bytes = new Uint8Array(64 * 1024);
  /** The bytes held. */
  size = 0;

  /** Append text; its length in bytes. */
  append(text: string): number {
    // A UTF-16 code unit takes at most 3 bytes in UTF-8.
    if (this.size + text.length * 3 > this.#bytes.length) {
      const bytes = _ENCODER.encode(text);
      this.put(bytes);
      return bytes.length;
    }
    const into = this.#bytes.subarray(this.size);
    const { written } = _ENCODER.encodeInto(text, into);
    this.size += written;
    return written;
  }

  /** Append bytes. */
  put(bytes: Uint8Array): void {
    if (this.size + bytes.length > this.#bytes.length) {
      const room = Math.max(this.size + bytes.length, this.#bytes.length * 2);
      const grown = new Uint8Array(room);
      grown.set(this.view());
      this.#bytes = grown;
    }
    this.#bytes.set(bytes, this.size);
    this.size += bytes.length;
  }

  /** The bytes held from `from` on (a view, valid until the next append). */
  view(from = 0): Uint8Array {
    return this.#bytes.subarray(from, this.size);
  }
}
