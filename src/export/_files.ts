/**
 * The export's files: the pages it writes, the scratch file a tree export
 * keeps its renderings in, the images beside the pages. Every filesystem
 * call of the export is in this file, so moving it to another runtime's
 * calls is one edit.
 *
 * @module
 */

import { basename, dirname, extname, join } from "node:path";
import type {
  ExportFooter,
  ExportMeta,
  Format,
  PageNav,
  Wrapper,
} from "./_document.ts";
import { relativeHref } from "./_escape.ts";

/** What the pages wrote. */
export interface Written {
  /** The files, in reading order. */
  files: string[];
  /** Their bytes in all. */
  bytes: number;
}

/** Room kept on each page for its head and foot beyond their measured size. */
const _SLACK_BYTES = 4096;
/** Bytes gathered before a write, and read at once from a scratch file. */
const _BLOCK_BYTES = 1024 * 1024;

/**
 * The output of one export: pages of at most `limit` bytes (`x.html`,
 * `x-2.html` …) linked to each other, or with no limit one file (the
 * Markdown export). A page is held until it is full, so its links are
 * known when it is written; without a limit nothing is to be known, and
 * the file is written as the fragments come. A block open across a page
 * break is closed at the bottom of one page and opened again at the top
 * of the next.
 */
export class Pages implements AsyncDisposable {
  readonly #first: string;
  readonly #format: Format;
  readonly #meta: ExportMeta;
  readonly #limit: number;
  readonly #encoder = new TextEncoder();
  readonly #stack: Wrapper[] = [];
  readonly #files: string[] = [];
  #file: Deno.FsFile | undefined;
  #bytes = 0;
  #page = 1;
  /** The page's body not yet written, and its bytes. */
  #body: Uint8Array[] = [];
  #size = 0;
  #hasContent = false;
  #budget: number | undefined;

  /**
   * Pages named after `path`.
   *
   * @param path The first page.
   * @param format The pages' format.
   * @param meta What their header says.
   * @param limit The most bytes a page holds (unless one fragment is
   * larger); `Infinity` for one file.
   */
  constructor(path: string, format: Format, meta: ExportMeta, limit: number) {
    this.#first = path;
    this.#format = format;
    this.#meta = meta;
    this.#limit = limit;
  }

  /**
   * Write a fragment; one that would overflow the page starts the next.
   *
   * @param fragment Text in the pages' format.
   */
  async write(fragment: string): Promise<void> {
    const bytes = this.#encoder.encode(
      this.#format.nest(fragment, this.#stack.length),
    );
    const closing = this.#stack.reduce((n, w) => n + w.close.length, 0);
    if (
      this.#hasContent && this.#size + bytes.length + closing > this.#room()
    ) await this.#turnPage();
    this.#push(bytes);
    this.#hasContent = true;
    if (this.#limit === Infinity && this.#size >= _BLOCK_BYTES) {
      await this.#drain();
    }
  }

  /**
   * Open a block: the fragments written until {@linkcode Pages.close} are
   * in it.
   *
   * @param wrapper The block.
   */
  async open(wrapper: Wrapper): Promise<void> {
    await this.write(wrapper.open);
    this.#stack.push(wrapper);
  }

  /** Close the innermost open block (never the start of a page). */
  close(): void {
    const wrapper = this.#stack.pop();
    if (wrapper === undefined) return;
    this.#push(this.#encoder.encode(
      this.#format.nest(wrapper.close, this.#stack.length),
    ));
  }

  /**
   * Close every block and write the last page, its footer saying `footer`.
   *
   * @param footer The damage read around.
   * @returns What was written.
   */
  async finish(footer: ExportFooter): Promise<Written> {
    while (this.#stack.length > 0) this.close();
    await this.#endPage(false, footer);
    return { files: [...this.#files], bytes: this.#bytes };
  }

  /** Close the file of a page left unfinished (after a failure). */
  [Symbol.asyncDispose](): Promise<void> {
    this.#file?.close();
    this.#file = undefined;
    return Promise.resolve();
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

  /** The bytes a page has for fragments once its frame is counted. */
  #room(): number {
    if (this.#limit === Infinity) return Infinity;
    if (this.#budget === undefined) {
      const nav = this.#nav(true);
      const frame = this.#format.head(this.#meta, nav) +
        this.#format.foot(undefined, nav);
      this.#budget = this.#limit - this.#encoder.encode(frame).length -
        _SLACK_BYTES;
    }
    return this.#budget;
  }

  #push(bytes: Uint8Array): void {
    this.#body.push(bytes);
    this.#size += bytes.length;
  }

  async #turnPage(): Promise<void> {
    const open = [...this.#stack];
    for (const w of [...open].reverse()) {
      this.#push(this.#encoder.encode(w.close));
    }
    await this.#endPage(true, undefined);
    this.#page++;
    this.#budget = undefined;
    this.#hasContent = false;
    for (const w of open) this.#push(this.#encoder.encode(w.reopen));
  }

  /** Write the page's head (when the page's file is new) and its body. */
  async #drain(hasNext = false): Promise<void> {
    let head = "";
    if (this.#file === undefined) {
      const path = this.#path(this.#page);
      this.#file = await Deno.open(path, {
        write: true,
        create: true,
        truncate: true,
      });
      this.#files.push(path);
      head = this.#format.head(this.#meta, this.#nav(hasNext));
    }
    await this.#writeAll(this.#encoder.encode(head), ...this.#body);
    this.#body = [];
    this.#size = 0;
  }

  async #endPage(hasNext: boolean, footer: ExportFooter | undefined) {
    await this.#drain(hasNext);
    const foot = this.#format.foot(footer, this.#nav(hasNext));
    await this.#writeAll(this.#encoder.encode(foot));
    this.#file!.close();
    this.#file = undefined;
  }

  async #writeAll(...chunks: Uint8Array[]): Promise<void> {
    const bytes = _concat(chunks);
    await _writeAll(this.#file!, bytes);
    this.#bytes += bytes.length;
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
  readonly #file: Deno.FsFile;
  readonly #encoder = new TextEncoder();
  readonly #decoder = new TextDecoder();
  #pending: Uint8Array[] = [];
  #pendingBytes = 0;
  #end = 0;
  #window = new Uint8Array(0);
  #windowAt = 0;

  private constructor(path: string, file: Deno.FsFile) {
    this.#path = path;
    this.#file = file;
  }

  /**
   * An empty scratch file.
   *
   * @param folder Where it is made.
   * @param prefix Its name's start.
   * @returns The file, open.
   */
  static async create(folder: string, prefix: string): Promise<Scratch> {
    const path = await Deno.makeTempFile({
      dir: folder,
      prefix,
      suffix: ".tmp",
    });
    try {
      return new Scratch(
        path,
        await Deno.open(path, { read: true, write: true }),
      );
    } catch (err) {
      await Deno.remove(path);
      throw err;
    }
  }

  /**
   * Append text.
   *
   * @param text A rendering.
   * @returns Where it starts, and its length in bytes.
   */
  async append(text: string): Promise<{ at: number; length: number }> {
    const bytes = this.#encoder.encode(text);
    this.#pending.push(bytes);
    this.#pendingBytes += bytes.length;
    const at = this.#end;
    this.#end += bytes.length;
    if (this.#pendingBytes >= _BLOCK_BYTES) await this.#flush();
    return { at, length: bytes.length };
  }

  /**
   * Read a rendering back.
   *
   * @param at Where it starts.
   * @param length Its bytes.
   * @returns The text.
   */
  async read(at: number, length: number): Promise<string> {
    await this.#flush();
    const from = at - this.#windowAt;
    if (from < 0 || from + length > this.#window.length) {
      const size = Math.min(Math.max(length, _BLOCK_BYTES), this.#end - at);
      this.#window = new Uint8Array(size);
      this.#windowAt = at;
      await this.#file.seek(at, Deno.SeekMode.Start);
      for (let got = 0; got < size;) {
        const n = await this.#file.read(this.#window.subarray(got));
        if (n === null) {
          throw new Error("Cannot export: the scratch file ended early");
        }
        got += n;
      }
    }
    const start = at - this.#windowAt;
    return this.#decoder.decode(this.#window.subarray(start, start + length));
  }

  /** Close the file and remove it. */
  async [Symbol.asyncDispose](): Promise<void> {
    this.#file.close();
    await Deno.remove(this.#path);
  }

  async #flush(): Promise<void> {
    if (this.#pendingBytes === 0) return;
    await this.#file.seek(0, Deno.SeekMode.End);
    await _writeAll(this.#file, _concat(this.#pending));
    this.#pending = [];
    this.#pendingBytes = 0;
  }
}

/**
 * A session file to read as a stream.
 *
 * @param path The file.
 * @returns Its bytes as a stream, its size, and how to close it.
 */
export async function openStream(path: string): Promise<
  { readable: ReadableStream<Uint8Array>; size: number } & Disposable
> {
  const file = await Deno.open(path);
  return {
    readable: file.readable,
    size: (await file.stat()).size,
    [Symbol.dispose]: () => file[Symbol.dispose](),
  };
}

/**
 * Whether `path` is a regular file (links followed).
 *
 * @param path The path.
 * @returns True for a file.
 * @throws {Deno.errors.NotFound} When nothing is there.
 */
export async function isFile(path: string): Promise<boolean> {
  return (await Deno.stat(path)).isFile;
}

/**
 * Make a folder and its parents, when missing.
 *
 * @param path The folder.
 */
export async function makeFolder(path: string): Promise<void> {
  await Deno.mkdir(path, { recursive: true });
}

/**
 * Write a whole file (an image beside the export).
 *
 * @param path The file.
 * @param bytes Its bytes.
 */
export async function writeFile(
  path: string,
  bytes: Uint8Array,
): Promise<void> {
  await Deno.writeFile(path, bytes);
}

/** Write all of `bytes`, looping on short writes. */
async function _writeAll(file: Deno.FsFile, bytes: Uint8Array): Promise<void> {
  let rest = bytes;
  while (rest.length > 0) rest = rest.subarray(await file.write(rest));
}

function _concat(chunks: Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
