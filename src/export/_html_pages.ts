/**
 * The HTML export's sink: pages of at most a given size (`name.html`,
 * `name-2.html` …) linked to each other. A page is held in memory until it
 * is full, so its links are known when it is written; a branch open across
 * a page break is closed at the bottom of one page and opened again at the
 * top of the next.
 *
 * @module
 */

import { basename, dirname, extname, join } from "node:path";
import { relativeHref } from "./_escape.ts";
import type { ExportFooter } from "./_meta.ts";
import {
  type PageNav,
  type Sink,
  type Wrapper,
  writeAllTo,
  type Written,
} from "./_renderer.ts";

/** How a page starts and ends. */
export interface PageFrame {
  /** The page's top, given where it sits. */
  head(nav: PageNav): string;
  /** The page's bottom; `footer` on the last page only. */
  foot(footer: ExportFooter | undefined, nav: PageNav): string;
}

/** Room kept on each page for its head and foot beyond their measured size. */
const _SLACK_BYTES = 4096;

/** HTML pages of a bounded size. */
export class HtmlPages implements Sink {
  readonly #first: string;
  readonly #frame: PageFrame;
  readonly #limit: number;
  readonly #encoder = new TextEncoder();
  readonly #stack: Wrapper[] = [];
  readonly #files: string[] = [];
  #bytes = 0;
  #page = 1;
  /** The page's body so far (reused from page to page). */
  #body = new Uint8Array(64 * 1024);
  #size = 0;
  #hasContent = false;
  #budgetOfPage: number | undefined;

  /**
   * Pages named after `path` (`x.html`, then `x-2.html` …).
   *
   * @param path The first page.
   * @param frame The pages' head and foot.
   * @param limit The most bytes a page holds, unless one message is larger.
   */
  constructor(path: string, frame: PageFrame, limit: number) {
    this.#first = path;
    this.#frame = frame;
    this.#limit = limit;
  }

  /** @inheritdoc */
  async write(fragment: string): Promise<void> {
    const before = this.#size;
    const length = this.#append(fragment);
    const closing = this.#stack.reduce((n, w) => n + w.close.length, 0);
    if (
      this.#hasContent && before + length + closing > this.#budget()
    ) {
      // The fragment starts the next page.
      const bytes = this.#body.slice(before, before + length);
      this.#size = before;
      await this.#turnPage();
      this.#reserve(bytes.length);
      this.#body.set(bytes, this.#size);
      this.#size += bytes.length;
    }
    this.#hasContent = true;
  }

  /** @inheritdoc */
  async open(wrapper: Wrapper): Promise<void> {
    await this.write(wrapper.open);
    this.#stack.push(wrapper);
  }

  /** @inheritdoc */
  close(): Promise<void> {
    const wrapper = this.#stack.pop();
    // A closing tag never starts a page of its own.
    if (wrapper !== undefined) this.#append(wrapper.close);
    return Promise.resolve();
  }

  /** @inheritdoc */
  async finish(footer: ExportFooter): Promise<Written> {
    while (this.#stack.length > 0) await this.close();
    await this.#writePage(false, footer);
    return { files: [...this.#files], bytes: this.#bytes };
  }

  /** @inheritdoc */
  abort(): Promise<void> {
    return Promise.resolve();
  }

  /**
   * The file of a page.
   *
   * @param page Its number.
   * @returns `x.html` for page 1, `x-<page>.html` after.
   */
  pagePath(page: number): string {
    if (page === 1) return this.#first;
    const ext = extname(this.#first);
    const stem = basename(this.#first, ext);
    return join(dirname(this.#first), `${stem}-${page}${ext}`);
  }

  #nav(hasNext: boolean): PageNav {
    const nav: PageNav = { page: this.#page };
    const href = (n: number) => relativeHref(basename(this.pagePath(n)));
    if (this.#page > 1) nav.prev = href(this.#page - 1);
    if (hasNext) nav.next = href(this.#page + 1);
    return nav;
  }

  /** The bytes left for fragments once the page's frame is counted. */
  #budget(): number {
    if (this.#budgetOfPage === undefined) {
      const nav = this.#nav(true);
      const frame = this.#frame.head(nav) + this.#frame.foot(undefined, nav);
      this.#budgetOfPage = this.#limit - this.#encoder.encode(frame).length -
        _SLACK_BYTES;
    }
    return this.#budgetOfPage;
  }

  /** Append text to the body, growing it as needed; its length in bytes. */
  #append(text: string): number {
    // A UTF-16 code unit takes at most 3 bytes in UTF-8.
    if (this.#size + text.length * 3 <= this.#body.length) {
      const into = this.#body.subarray(this.#size);
      const { written } = this.#encoder.encodeInto(text, into);
      this.#size += written;
      return written;
    }
    const bytes = this.#encoder.encode(text);
    this.#reserve(bytes.length);
    this.#body.set(bytes, this.#size);
    this.#size += bytes.length;
    return bytes.length;
  }

  /** Room for `more` bytes after the body. */
  #reserve(more: number): void {
    if (this.#size + more <= this.#body.length) return;
    const grown = new Uint8Array(
      Math.max(this.#size + more, this.#body.length * 2),
    );
    grown.set(this.#body.subarray(0, this.#size));
    this.#body = grown;
  }

  async #turnPage(): Promise<void> {
    const open = [...this.#stack];
    for (const w of [...open].reverse()) this.#append(w.close);
    await this.#writePage(true, undefined);
    this.#page++;
    this.#budgetOfPage = undefined;
    this.#size = 0;
    this.#hasContent = false;
    for (const w of open) this.#append(w.reopen);
  }

  async #writePage(
    hasNext: boolean,
    footer: ExportFooter | undefined,
  ): Promise<void> {
    const nav = this.#nav(hasNext);
    const path = this.pagePath(this.#page);
    using file = await Deno.open(path, {
      write: true,
      create: true,
      truncate: true,
    });
    for (
      const bytes of [
        this.#encoder.encode(this.#frame.head(nav)),
        this.#body.subarray(0, this.#size),
        this.#encoder.encode(this.#frame.foot(footer, nav)),
      ]
    ) {
      await writeAllTo(file, bytes);
      this.#bytes += bytes.length;
    }
    this.#files.push(path);
  }
}
