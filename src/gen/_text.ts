/**
 * The randomness and the text of a generated transcript: a seeded PRNG, word
 * pools (English, CJK, accents, emoji), and pre-generated code, log and grep
 * blocks that tool outputs are stitched from.
 *
 * Every draw comes from the one PRNG in a fixed order, so the same seed gives
 * the same bytes: a change to the order of the draws (or to a table) changes
 * every generated file, and the benchmarks compare runs on those files.
 *
 * @module
 */

/** Tool outputs are drawn between these sizes, skewed to the small end. */
const TOOL_OUTPUT_MIN = 1024;
const TOOL_OUTPUT_MAX = 200 * 1024;
/** Blocks pre-generated per pool (style × ASCII-only or not). */
const BLOCKS_PER_POOL = 96;

/** A seeded PRNG (mulberry32: small, and the same sequence on every engine). */
export class _Rng {
  #a: number;
  constructor(seed: number) {
    this.#a = seed >>> 0;
  }
  /** A float in [0, 1). */
  next(): number {
    const a = this.#a = (this.#a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** An unsigned 32-bit integer. */
  u32(): number {
    return (this.next() * 4294967296) >>> 0;
  }
  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  /** An integer in [lo, hi]. */
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  hex(digits: number): string {
    let s = "";
    while (s.length < digits) s += this.u32().toString(16).padStart(8, "0");
    return s.slice(0, digits);
  }
}

const _EN = (
  "the session store entry leaf parent slot blob title header append fsync " +
  "branch compaction window reader buffer offset line chunk parse encode " +
  "decode stream file test cache index tree path context model token usage " +
  "cost error retry lock rename atomic write read scan backwards boundary " +
  "reset summary kept first last newline UTF-8 JSON Deno Bun omp ok fast " +
  "slow bytes heap memory then and so but because now check fix add remove " +
  "keep move we it this that should must can will not only every each one " +
  "two three half before after when while"
).split(" ");
const _INTL = (
  "数据 文件 会话 压缩 分支 读取 写入 测试 修复 缓存 保持行为一致 ファイル " +
  "セッション ストリーム 確認 テスト 세션 파일 café déjà naïve über façade " +
  "résumé Ångström crème jalapeño Straße → ✓ — … 🙂 🎉 🧪 🚀 📦 🔥 🐛 ✨ 🛠️ 😅 👍"
).split(" ");
export const _FNS = (
  "readSlot appendEntry parseLine loadBlobs resolveLeaf slugForCwd " +
  "rebuildContext scanBackwards openSession writeHeader compactWindow " +
  "hashBlob listSessions forkSession truncateTail"
).split(" ");
export const _FILES = (
  "src/session.ts src/line_reader.ts src/window.ts src/context.ts " +
  "src/blob_store.ts src/title_slot.ts src/header.ts src/entries.ts " +
  "tests/session_test.ts tests/window_test.ts cli.ts mod.ts README.md deno.json"
).split(" ");
/** Paths named by failing tool calls. */
export const _MISSING = [
  "docs/设计.md",
  "src/セッション.ts",
  "notes/résumé.txt",
  "src/session/store.ts",
];
const _VARS =
  "line entry offset chunk buf ids leaf parent count result text bytes cursor"
    .split(" ");
const _TYPES =
  "string|number|Uint8Array|SessionEntry|boolean|readonly string[]|Map<string, number>"
    .split("|");
export const _TITLES = [
  "Stream the session loader — 流式读取大文件 🚀",
  "Fix the flaky compaction test (テスト) 🐛",
  "Refactor the blob store: déjà-vu hashing ✨",
  "Open 1 GB sessions in 50 ms — 後ろから読む 📦",
  "Make readSlot handle CRLF (Windows ファイル) 🛠️",
  "Rebuild the context after a reset — 세션 정리 🧪",
];
export const _PROMPTS = [
  "Refactor {file} to remove the global state, keep behaviour identical.",
  "Why does `{fn}` return undefined for empty input?",
  "Add a unit test for `{fn}` covering the unicode path.",
  "Make `{fn}` handle CRLF line endings.",
  "Run the tests and fix what fails.",
  "Explain what {file} does and list its exports.",
  "Rename `{fn}` to `{fn}V2` everywhere and update the docs.",
];
export const _TOOLS = ["read", "bash", "grep", "edit", "find"] as const;
export type _Tool = typeof _TOOLS[number];

/**
 * A tool output kept as pieces joined by `"\n"`: strings, and pool blocks
 * already escaped for a JSON string and encoded, so the bulk of a file is
 * copied, not re-serialised.
 */
export type _Body = (string | Uint8Array)[];

/** Pre-generated blocks of one style: escaped and encoded, and their sizes. */
interface _Pool {
  /** Each block as it sits inside a JSON string, in UTF-8. */
  escaped: Uint8Array[];
  /** Each block's UTF-8 length unescaped, plus 1 for the joining `"\n"`. */
  bytes: number[];
}

/** Words, prompts and tool outputs drawn from the pools. */
export class _Text {
  readonly #r: _Rng;
  readonly #pools = new Map<string, _Pool>();

  constructor(rng: _Rng) {
    this.#r = rng;
    const encoder = new TextEncoder();
    for (const style of ["code", "log", "grep"]) {
      for (const ascii of [false, true]) {
        const texts = Array.from(
          { length: BLOCKS_PER_POOL },
          () => this.#block(style, ascii),
        );
        this.#pools.set(`${style}${ascii}`, {
          escaped: texts.map((t) =>
            encoder.encode(JSON.stringify(t).slice(1, -1))
          ),
          bytes: texts.map((t) => encoder.encode(t).length + 1),
        });
      }
    }
  }

  /** `n` words; unless `ascii`, at least one of them non-ASCII. */
  words(n: number, ascii: boolean): string {
    const r = this.#r;
    const parts: string[] = [];
    for (let i = 0; i < n; i++) {
      parts.push(!ascii && r.chance(0.18) ? r.pick(_INTL) : r.pick(_EN));
    }
    if (!ascii) parts[r.int(n)] = r.pick(_INTL);
    return parts.join(" ");
  }

  /** Code-like text of 1–200 KB (UTF-8, before JSON escaping), `head` first. */
  toolOutput(tool: _Tool, ascii: boolean, head: string): _Body {
    const style = tool === "bash"
      ? "log"
      : tool === "grep" || tool === "find"
      ? "grep"
      : "code";
    const pool = this.#pools.get(`${style}${ascii}`)!;
    const r = this.#r;
    // Skewed to small outputs: mean ~21 KB, so ~400 entries make 4 MB.
    const target = TOOL_OUTPUT_MIN *
      (TOOL_OUTPUT_MAX / TOOL_OUTPUT_MIN) ** (r.next() ** 2);
    const parts: _Body = [head];
    let bytes = head.length + 1;
    while (bytes < target) {
      const i = r.int(pool.escaped.length);
      if (bytes + pool.bytes[i]! > TOOL_OUTPUT_MAX) break;
      parts.push(pool.escaped[i]!);
      bytes += pool.bytes[i]!;
    }
    if (!ascii && r.chance(0.01)) {
      // A raw U+2028 inside a string: valid JSON, a line break to some readers.
      parts.push(`const SEP = "${r.pick(_INTL)}\u2028${r.pick(_INTL)}";`);
    }
    return parts;
  }

  /** A test log, grep hits or a function, of 6–32 lines. */
  #block(style: string, ascii: boolean): string {
    const r = this.#r;
    const count = r.range(6, 32);
    const lines: string[] = [];
    if (style === "log") {
      lines.push(`running ${count} tests from ./${r.pick(_FILES)}`);
      for (let i = 0; i < count; i++) {
        const name = r.pick(_FNS);
        const words = this.words(r.range(1, 4), ascii);
        lines.push(`${name} ${words} ... ok (${r.range(1, 90)}ms)`);
      }
      lines.push(`ok | ${count} passed | 0 failed (${r.range(20, 900)}ms)`);
    } else if (style === "grep") {
      for (let i = 0; i < count; i++) {
        const file = r.pick(_FILES);
        lines.push(`${file}:${r.range(1, 900)}:  ${this.#codeLine(ascii)}`);
      }
    } else {
      const v = r.pick(_VARS);
      const type = r.pick(_TYPES);
      lines.push(`// ${this.words(r.range(4, 12), ascii)}`);
      lines.push(`export function ${r.pick(_FNS)}(${v}: ${type}): ${type} {`);
      for (let i = 0; i < count; i++) lines.push(`  ${this.#codeLine(ascii)}`);
      lines.push(`  return ${v};`, "}");
    }
    return lines.join("\n");
  }

  /** One line of code. Template parts are drawn left to right. */
  #codeLine(ascii: boolean): string {
    const r = this.#r;
    const v = r.pick(_VARS);
    const w = r.pick(_VARS);
    switch (r.int(6)) {
      case 0:
        return `const ${v} = ${w}.subarray(${r.range(0, 4096)});`;
      case 1:
        return `if (${v}.length > ${r.range(1, 1 << 20)}) return ${
          r.pick(_FNS)
        }(${v}, "${this.words(3, ascii)}");`;
      case 2:
        return `// ${this.words(r.range(3, 10), ascii)}`;
      case 3:
        return `for (const item of ${v}) total += item.${w} ?? ${
          r.range(0, 99)
        };`;
      case 4:
        return `await ${r.pick(_FNS)}(${v}, { signal, offset: ${
          r.range(0, 1e6)
        } });`;
      default:
        return `throw new RangeError(\`Cannot read "${r.pick(_FILES)}": ${
          this.words(r.range(2, 6), ascii)
        }\`);`;
    }
  }
}
