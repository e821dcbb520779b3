/**
 * The Markdown export's sink: one file, written as fragments come; the
 * fragments of an open branch are quoted (`> `) once per level of nesting.
 *
 * @module
 */

import type { ExportFooter } from "./_meta.ts";
import {
  type Sink,
  type Wrapper,
  writeAllTo,
  type Written,
} from "./_renderer.ts";

/** Bytes gathered before each write to the file. */
const _BUFFER_BYTES = 256 * 1024;

/** One Markdown file. */
export class MarkdownFile implements Sink {
  readonly #path: string;
  readonly #file: Deno.FsFile;
  readonly #foot: (footer: ExportFooter) => string;
  readonly #encoder = new TextEncoder();
  readonly #stack: Wrapper[] = [];
  #pending: string[] = [];
  #pendingLength = 0;
  #bytes = 0;

  private constructor(
    path: string,
    file: Deno.FsFile,
    foot: (footer: ExportFooter) => string,
  ) {
    this.#path = path;
    this.#file = file;
    this.#foot = foot;
  }

  /**
   * Create (or truncate) the file and write its head.
   *
   * @param path The file.
   * @param head The document's start.
   * @param foot Its end, given the damage.
   * @returns The sink.
   */
  static async create(
    path: string,
    head: string,
    foot: (footer: ExportFooter) => string,
  ): Promise<MarkdownFile> {
    const file = await Deno.open(path, {
      write: true,
      create: true,
      truncate: true,
    });
    const sink = new MarkdownFile(path, file, foot);
    await sink.write(head);
    return sink;
  }

  /** @inheritdoc */
  async write(fragment: string): Promise<void> {
    const depth = this.#stack.length;
    const text = depth === 0 ? fragment : _quote(fragment, depth);
    this.#pending.push(text);
    this.#pendingLength += text.length;
    if (this.#pendingLength >= _BUFFER_BYTES) await this.#flush();
  }

  /** @inheritdoc */
  async open(wrapper: Wrapper): Promise<void> {
    await this.write(wrapper.open);
    this.#stack.push(wrapper);
  }

  /** @inheritdoc */
  async close(): Promise<void> {
    const wrapper = this.#stack.pop();
    if (wrapper !== undefined && wrapper.close !== "") {
      await this.write(wrapper.close);
    }
  }

  /** @inheritdoc */
  async finish(footer: ExportFooter): Promise<Written> {
    while (this.#stack.length > 0) await this.close();
    await this.write(this.#foot(footer));
    await this.#flush();
    this.#file.close();
    return { files: [this.#path], bytes: this.#bytes };
  }

  /** @inheritdoc */
  abort(): Promise<void> {
    this.#file.close();
    return Promise.resolve();
  }

  async #flush(): Promise<void> {
    const bytes = this.#encoder.encode(this.#pending.join(""));
    this.#pending = [];
    this.#pendingLength = 0;
    await writeAllTo(this.#file, bytes);
    this.#bytes += bytes.length;
  }
}

/** Quote every line `depth` times, blank lines too (the quote goes on). */
function _quote(text: string, depth: number): string {
  const prefix = ">".repeat(depth);
  const lines = text.split("\n");
  const last = lines.pop(); // "" after a final line break
  const quoted = lines.map((l) => l === "" ? prefix : `${prefix} ${l}`);
  if (last !== undefined && last !== "") quoted.push(`${prefix} ${last}`);
  return quoted.join("\n") + (last === "" ? "\n" : "");
}
