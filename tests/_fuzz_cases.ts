/**
 * The fuzz cases shared by `tests/fuzz_test.ts` (a CI-sized run) and
 * `tools/fuzz.ts` (long runs): random mutations of the real fixtures
 * (`fixtures/omp/*.jsonl`, `fixtures/pi/*.jsonl`), and the properties every
 * loader must keep on them.
 *
 * Each case runs in a Web Worker (this module, loaded as one), so that a
 * case that never ends can be stopped: the main thread gives each case a
 * timeout and terminates the worker when it runs out. Inside the worker the
 * filesystem seam (`setFs`) and the `Deno` file functions the loaders call
 * record every path touched; a path outside the case's temp dir fails the
 * case.
 *
 * Properties, for `Session.open` (windowed, `{ window: false }`, and without
 * a data dir, which searches for one) and `Session.fromStream`:
 * - nothing is thrown but `SessionSyntaxError`, and that only when the header
 *   line itself is damaged (its bytes moved or changed);
 * - `buildContext()` (both reset rules) and `windowStats()` never throw;
 * - no case runs past its timeout (cycles made by swapped parent ids
 *   included);
 * - no file outside the temp dir is touched;
 * - in one case in four, the usage report and three searches give the same
 *   answer from the files and through an index made for the case.
 *
 * Half the cases walk backwards with tiny blocks, so files of a few
 * kilobytes cross as many block edges as a large one.
 *
 * @module
 */
import fc from "fast-check";
import { join } from "node:path";
import { realFs, setFs } from "../src/_fs.ts";
import {
  type BackwardLinesBlocks,
  setBackwardLinesBlocks,
} from "../src/read/_backward_lines.ts";
import { Session, SessionIndex, SessionSyntaxError } from "../mod.ts";
import { reported, searched } from "./_indexed.ts";

// ------------------------------------------------------------------ corpus

/** A fixture and where its prefix ends. */
export interface Fixture {
  name: string;
  bytes: Uint8Array;
  /** End of line 1 when it is a title slot, else 0. */
  slotEnd: number;
  /** End of the header line, its "\n" included. */
  headerEnd: number;
}

const FIXTURES = new URL("../fixtures/", import.meta.url);
const NL = 0x0a;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The real fixtures, read once. */
export async function loadCorpus(): Promise<Fixture[]> {
  const out: Fixture[] = [];
  for (const folder of ["omp", "pi"]) {
    const dir = new URL(`${folder}/`, FIXTURES);
    const names: string[] = [];
    for await (const e of Deno.readDir(dir)) {
      if (e.isFile && e.name.endsWith(".jsonl")) names.push(e.name);
    }
    for (const name of names.sort()) {
      const bytes = await Deno.readFile(new URL(name, dir));
      const first = bytes.indexOf(NL) + 1;
      const slotted = decoder.decode(bytes.subarray(0, 16)).startsWith(
        '{"type":"title"',
      );
      const slotEnd = slotted ? first : 0;
      const headerEnd = slotted ? bytes.indexOf(NL, first) + 1 : first;
      out.push({ name: `${folder}/${name}`, bytes, slotEnd, headerEnd });
    }
  }
  return out;
}

/** The blobs folder the fixtures reference. */
export const FIXTURE_BLOBS: URL = new URL("omp/blobs/", FIXTURES);

// --------------------------------------------------------------- mutations

/** One change to a file. Positions are taken modulo the current size. */
export type Mutation =
  | { kind: "flip"; at: number; xor: number }
  | { kind: "truncate"; at: number }
  | { kind: "garbage"; at: number; bytes: number[] }
  | { kind: "dupLine"; from: number; to: number }
  | { kind: "swapLines"; a: number; b: number }
  | { kind: "deleteLine"; at: number }
  | { kind: "hugeLine"; at: number; mb: number; json: boolean }
  | { kind: "badUtf8"; at: number; seq: number }
  | {
    kind: "nul";
    at: number;
    len: number;
    mode: "insert" | "overwrite" | "tail";
  }
  | { kind: "cycle"; a: number; b: number }
  | { kind: "crlf" }
  /** Cut the file just before one of its line feeds: a whole last line without it. */
  | { kind: "cutAtLineEnd"; at: number }
  | { kind: "blank"; at: number }
  | { kind: "blobRef"; at: number; ref: number; asText: boolean };

/** A case: a fixture and what is done to it. */
export interface FuzzCase {
  fixture: number;
  mutations: Mutation[];
  /** Also open without a data dir (searched for upwards) and without checkpoints, and ask usage and search both ways: one case in four. */
  search: boolean;
  /** Then append to the damaged file and open it again: one case in two. */
  append: boolean;
  /** How the windowed open walks back: the library's own blocks (`{}`), or tiny ones. */
  walk: BackwardLinesBlocks;
}

/** Invalid UTF-8: a lone continuation, a truncated sequence, overlong, a surrogate, 0xFF. */
const BAD_UTF8 = [[0x80], [0xc3], [0xe2, 0x82], [0xc0, 0x80], [
  0xed,
  0xa0,
  0x80,
], [
  0xff,
], [0xf4, 0x90, 0x80, 0x80]];

const HEX = "0123456789abcdef";
/** Blob references, valid in shape or hostile; none may lead outside the data dir. */
export const BLOB_REFS: readonly string[] = [
  "blob:sha256:../../../../etc/passwd",
  `blob:sha256:../${"a".repeat(61)}`,
  `blob:sha256:/${"b".repeat(63)}`,
  `blob:sha256:${"A".repeat(64)}`,
  `blob:sha256:${"c".repeat(64)}\u0000`,
  `blob:sha256:${"d".repeat(64)}/../../x`,
  `blob:sha256:${HEX.repeat(4)}`, // valid shape, absent
  "blob:sha256:02d0ebcb1041809815e8b77360fd3dd88345cdc488b9382f284f23babe61a942", // present
  "/etc/passwd",
  "file:///etc/passwd",
  "blob:sha256:%2e%2e%2f%2e%2e%2fetc%2fpasswd",
];

/** The fast-check arbitrary of one mutation. */
export function mutationArb(): fc.Arbitrary<Mutation> {
  const at = fc.nat();
  return fc.oneof(
    {
      weight: 36,
      arbitrary: fc.record({
        kind: fc.constant("flip" as const),
        at,
        xor: fc.integer({ min: 1, max: 255 }),
      }),
    },
    {
      weight: 18,
      arbitrary: fc.record({ kind: fc.constant("truncate" as const), at }),
    },
    {
      weight: 18,
      arbitrary: fc.record({
        kind: fc.constant("garbage" as const),
        at,
        bytes: fc.array(fc.integer({ min: 0, max: 255 }), {
          minLength: 1,
          maxLength: 64,
        }),
      }),
    },
    {
      weight: 12,
      arbitrary: fc.record({
        kind: fc.constant("dupLine" as const),
        from: at,
        to: fc.nat(),
      }),
    },
    {
      weight: 12,
      arbitrary: fc.record({
        kind: fc.constant("swapLines" as const),
        a: at,
        b: fc.nat(),
      }),
    },
    {
      weight: 6,
      arbitrary: fc.record({ kind: fc.constant("deleteLine" as const), at }),
    },
    {
      weight: 1, // ~1.5 % of cases: each costs ~0.3 s
      arbitrary: fc.record({
        kind: fc.constant("hugeLine" as const),
        at,
        mb: fc.integer({ min: 2, max: 4 }),
        json: fc.boolean(),
      }),
    },
    {
      weight: 12,
      arbitrary: fc.record({
        kind: fc.constant("badUtf8" as const),
        at,
        seq: fc.nat({ max: BAD_UTF8.length - 1 }),
      }),
    },
    {
      weight: 12,
      arbitrary: fc.record({
        kind: fc.constant("nul" as const),
        at,
        len: fc.integer({ min: 1, max: 8192 }),
        mode: fc.constantFrom(
          "insert" as const,
          "overwrite" as const,
          "tail" as const,
        ),
      }),
    },
    {
      weight: 24,
      arbitrary: fc.record({
        kind: fc.constant("cycle" as const),
        a: at,
        b: fc.nat(),
      }),
    },
    { weight: 6, arbitrary: fc.record({ kind: fc.constant("crlf" as const) }) },
    {
      weight: 8,
      arbitrary: fc.record({ kind: fc.constant("cutAtLineEnd" as const), at }),
    },
    {
      weight: 6,
      arbitrary: fc.record({ kind: fc.constant("blank" as const), at }),
    },
    {
      weight: 12,
      arbitrary: fc.record({
        kind: fc.constant("blobRef" as const),
        at,
        ref: fc.nat({ max: BLOB_REFS.length - 1 }),
        asText: fc.boolean(),
      }),
    },
  );
}

/**
 * The index of a fixture: each of omp's three times as often as pi's 1 MB
 * legacy file, which costs ten times as much to load.
 */
function fixtureArb(fixtures: Fixture[]): fc.Arbitrary<number> {
  const omp = fixtures.flatMap((f, i) => (f.name.startsWith("pi/") ? [] : [i]));
  const pi = fixtures.flatMap((f, i) => (f.name.startsWith("pi/") ? [i] : []));
  return fc.oneof(
    { weight: 3 * omp.length, arbitrary: fc.constantFrom(...omp) },
    { weight: 1, arbitrary: fc.constantFrom(...pi) },
  );
}

/** The fast-check arbitrary of a case: a fixture and 1 to 4 mutations. */
export function caseArb(fixtures: Fixture[]): fc.Arbitrary<FuzzCase> {
  return fc.record({
    fixture: fixtureArb(fixtures),
    search: fc.nat({ max: 3 }).map((n) => n === 0),
    append: fc.boolean(),
    mutations: fc.array(mutationArb(), { minLength: 1, maxLength: 4 }),
    walk: walkArb(),
  });
}

/** The walk's blocks: half the library's own, half tiny ones. */
export function walkArb(): fc.Arbitrary<BackwardLinesBlocks> {
  return fc.oneof(
    fc.constant({}),
    fc.record({
      firstBlockBytes: fc.integer({ min: 1, max: 600 }),
      // Not under 256: a case may hold a 4 MiB line, and blocks of a few
      // bytes (which never grow past this) would take a read per byte.
      blockBytes: fc.integer({ min: 256, max: 5000 }),
    }),
  );
}

/** The lines of `bytes`, each with its "\n" (the last maybe without). */
function splitLines(bytes: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  let start = 0;
  for (let i = bytes.indexOf(NL); i >= 0; i = bytes.indexOf(NL, i + 1)) {
    out.push(bytes.subarray(start, i + 1));
    start = i + 1;
  }
  if (start < bytes.length) out.push(bytes.subarray(start));
  return out;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Splices `insert` into `bytes` at `at`, replacing `remove` bytes. */
function splice(
  bytes: Uint8Array,
  at: number,
  remove: number,
  insert: Uint8Array,
): Uint8Array {
  return concat([bytes.subarray(0, at), insert, bytes.subarray(at + remove)]);
}

/** A line as a JSON object, or undefined. */
function asObject(line: Uint8Array): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(decoder.decode(line));
    return v !== null && typeof v === "object" && !Array.isArray(v)
      ? v
      : undefined;
  } catch {
    return undefined;
  }
}

/** Applies one mutation. */
export function mutate(bytes: Uint8Array, m: Mutation): Uint8Array {
  const n = bytes.length;
  const pos = (x: number) => (n === 0 ? 0 : x % (n + 1));
  switch (m.kind) {
    case "flip": {
      if (n === 0) return bytes;
      const out = bytes.slice();
      out[m.at % n] = out[m.at % n]! ^ m.xor;
      return out;
    }
    case "truncate":
      return bytes.subarray(0, pos(m.at));
    case "garbage":
      return splice(bytes, pos(m.at), 0, new Uint8Array(m.bytes));
    case "badUtf8":
      return splice(bytes, pos(m.at), 0, new Uint8Array(BAD_UTF8[m.seq]!));
    case "nul": {
      const zeros = new Uint8Array(m.len);
      if (m.mode === "tail") return concat([bytes, zeros]);
      const at = pos(m.at);
      return splice(
        bytes,
        at,
        m.mode === "overwrite" ? Math.min(m.len, n - at) : 0,
        zeros,
      );
    }
    case "crlf":
      return encoder.encode(decoder.decode(bytes).replaceAll("\n", "\r\n"));
    case "cutAtLineEnd": {
      const ends: number[] = [];
      for (
        let i = bytes.indexOf(0x0a);
        i !== -1;
        i = bytes.indexOf(0x0a, i + 1)
      ) {
        ends.push(i);
      }
      if (ends.length === 0) return bytes;
      return bytes.subarray(0, ends[m.at % ends.length]);
    }
    default:
      return concat(mutateLines(splitLines(bytes), m));
  }
}

function mutateLines(lines: Uint8Array[], m: Mutation): Uint8Array[] {
  const n = lines.length;
  if (n === 0) return lines;
  const out = lines.slice();
  switch (m.kind) {
    case "dupLine":
      out.splice(m.to % (n + 1), 0, lines[m.from % n]!);
      return out;
    case "swapLines": {
      const a = m.a % n;
      const b = m.b % n;
      [out[a], out[b]] = [out[b]!, out[a]!];
      return out;
    }
    case "deleteLine":
      out.splice(m.at % n, 1);
      return out;
    case "blank":
      out.splice(m.at % (n + 1), 0, encoder.encode("\n"));
      return out;
    case "hugeLine": {
      const size = m.mb * 1024 * 1024;
      const line = m.json
        ? encoder.encode(
          `${
            JSON.stringify({
              type: "message",
              id: "0huge000",
              parentId: null,
              timestamp: "2026-01-01T00:00:00.000Z",
              message: { role: "user", content: "x".repeat(size) },
            })
          }\n`,
        )
        : new Uint8Array(size + 1).fill(0x7b).fill(NL, size);
      out.splice(m.at % (n + 1), 0, line);
      return out;
    }
    case "cycle": {
      // Line a's parent becomes line b's id (a descendant of a, or a itself):
      // a cycle on the path whenever b is below a.
      const a = m.a % n;
      const b = m.b % n;
      const child = asObject(lines[a]!);
      const parent = asObject(lines[b]!);
      if (child === undefined || typeof parent?.id !== "string") return out;
      if (!("parentId" in child)) return out;
      child.parentId = parent.id;
      const nl = lines[a]![lines[a]!.length - 1] === NL ? "\n" : "";
      out[a] = encoder.encode(`${JSON.stringify(child)}${nl}`);
      return out;
    }
    case "blobRef": {
      const ref = BLOB_REFS[m.ref]!;
      const message = m.asText
        ? {
          role: "toolResult",
          toolCallId: "call_x",
          toolName: "read",
          content: [{ type: "text", text: ref }],
          isError: false,
        }
        : {
          role: "user",
          content: [{ type: "image", mimeType: "image/png", data: ref }],
        };
      // A child of the last entry, so it is on the active path.
      let parentId: unknown = null;
      for (let i = n - 1; i >= 0 && parentId === null; i--) {
        const o = asObject(lines[i]!);
        if (typeof o?.id === "string" && o.type !== "session") parentId = o.id;
      }
      const line = JSON.stringify({
        type: "message",
        id: "0b10b000",
        parentId,
        timestamp: "2026-01-01T00:00:00.000Z",
        message,
      });
      out.splice(Math.max(1, m.at % (n + 1)), 0, encoder.encode(`${line}\n`));
      return out;
    }
    default:
      return out;
  }
}

/** The case's bytes. */
export function applyCase(fixtures: Fixture[], c: FuzzCase): Uint8Array {
  let bytes = fixtures[c.fixture]!.bytes;
  for (const m of c.mutations) bytes = mutate(bytes, m);
  return bytes;
}

/**
 * Whether the header line is intact: at the same place, the same bytes, and
 * line 1 (a slot) still one line. Then no loader may throw.
 */
export function headerIntact(f: Fixture, bytes: Uint8Array): boolean {
  if (bytes.length < f.headerEnd) return false;
  for (let i = f.slotEnd; i < f.headerEnd; i++) {
    if (bytes[i] !== f.bytes[i]) return false;
  }
  const firstNl = bytes.indexOf(NL);
  return f.slotEnd === 0 || firstNl === f.slotEnd - 1;
}

// ------------------------------------------------------- the worker's side

/** What a case did. */
export interface CaseResult {
  /** Why the case failed; undefined when it held. */
  failure?: string;
  /** Whether a loader threw SessionSyntaxError. */
  syntaxError: boolean;
  /** Loads run (each open or stream). */
  loads: number;
  /** Entries the loads kept, summed. */
  entries: number;
  /** Issues the loads reported, summed. */
  issues: number;
  /** Paths touched through the seam or `Deno` (all inside the temp dir). */
  touched: number;
  /**
   * Whether the windowed and the full open rebuilt contexts that differ
   * beyond their messages (which must match): thinking level, models,
   * active path. A failure: the windowed open must agree with the full read.
   */
  windowDiffers: boolean;
  /** Whether they rebuilt different messages in a file with a duplicate id. */
  windowDuplicateDiffers?: boolean;
  /** Whether an entry was appended to the damaged file (and checked). */
  appended?: boolean;
  /** Whether the usage report and searches were asked both ways, files and index (and agreed). */
  crossed?: boolean;
}

/** Paths the worker touched since the last {@linkcode _takeTouched}. */
const _touched: string[] = [];

/** The one file outside the temp dir a case may read: the config `findDataDir` consults. */
const _CONFIG = join(Deno.env.get("HOME") ?? "/", ".xdev", "config.jsonc");

function _record(path: string | URL, op?: string): void {
  const p = path instanceof URL ? path.pathname : String(path);
  if (op === "readFile" && p === _CONFIG) return;
  _touched.push(p);
}

function _takeTouched(): string[] {
  return _touched.splice(0);
}

/** `fs` recording the paths of every call through it. */
function _recorded<T extends object>(fs: T): T {
  return Object.fromEntries(
    Object.entries(fs).map(([name, op]) => [
      name,
      typeof op !== "function" ? op : (...args: unknown[]) => {
        if (name !== "isAlive" && name !== "error") {
          _record(args[0] as string, name);
        }
        if (name === "rename" || name === "link") _record(args[1] as string);
        return (op as (...a: unknown[]) => unknown)(...args);
      },
    ]),
  ) as T;
}

/**
 * Installs the recording filesystem: the seam, and the `Deno` functions
 * code calls directly (the session index's, which does not go through the
 * seam yet, among them: they include its writes).
 */
function _installRecorder(): void {
  setFs(_recorded(realFs));
  const d = Deno as unknown as Record<string, (...a: unknown[]) => unknown>;
  for (
    const name of [
      "open",
      "openSync",
      "readFile",
      "readFileSync",
      "readTextFile",
      "readTextFileSync",
      "stat",
      "statSync",
      "lstat",
      "lstatSync",
      "realPath",
      "realPathSync",
      "readDir",
      "readDirSync",
      "readLink",
      "readLinkSync",
      "mkdir",
      "mkdirSync",
      "chmod",
      "chmodSync",
      "rename",
      "renameSync",
      "link",
      "linkSync",
      "remove",
      "removeSync",
    ]
  ) {
    const real = d[name]!;
    d[name] = (...args: unknown[]) => {
      _record(args[0] as string, name);
      if (name.startsWith("rename") || name.startsWith("link")) {
        _record(args[1] as string);
      }
      return real.apply(Deno, args);
    };
  }
}

/** Runs the loaders on `bytes` in `root` (a temp dir holding `agent/blobs`). */
export async function checkBytes(
  root: string,
  bytes: Uint8Array,
  mayThrow: boolean,
  search = true,
  probe?: string,
  append = false,
  walk: BackwardLinesBlocks = {},
): Promise<CaseResult> {
  setBackwardLinesBlocks(walk);
  try {
    return await _checkBytes(root, bytes, mayThrow, search, probe, append);
  } finally {
    setBackwardLinesBlocks({});
  }
}

async function _checkBytes(
  root: string,
  bytes: Uint8Array,
  mayThrow: boolean,
  search: boolean,
  probe: string | undefined,
  append: boolean,
): Promise<CaseResult> {
  const dataDir = join(root, "agent");
  const path = join(dataDir, "sessions", "--case--", "case.jsonl");
  await Deno.writeFile(path, bytes);
  _takeTouched();
  if (probe !== undefined) await Deno.stat(probe).catch(() => undefined);
  const result: CaseResult = {
    syntaxError: false,
    loads: 0,
    entries: 0,
    issues: 0,
    touched: 0,
    windowDiffers: false,
  };
  const contexts: ReturnType<Session["buildContext"]>[] = [];
  let duplicates = false;
  const load = async (
    how: string,
    open: () => Promise<Session>,
  ): Promise<void> => {
    let s: Session;
    try {
      s = await open();
    } catch (err) {
      if (!(err instanceof SessionSyntaxError)) {
        result.failure ??= `${how} threw ${String(err)}${
          err instanceof Error ? `\n${err.stack}` : ""
        }`;
      } else if (!mayThrow) {
        result.failure ??=
          `${how} threw ${err.message}, but the header is intact`;
      } else result.syntaxError = true;
      return;
    }
    try {
      result.loads++;
      result.entries += s.entries.length;
      result.issues += s.issues.length;
      const ctx = s.buildContext();
      s.buildContext({ resetRule: "omp" });
      s.windowStats();
      if (how === "open { window: false }") {
        duplicates = s.issues.some((i) => i.kind === "duplicate-id");
      }
      if (how === "open" || how === "open { window: false }") {
        contexts.push(ctx);
      }
    } catch (err) {
      result.failure ??= `${how}: buildContext threw ${String(err)}${
        err instanceof Error ? `\n${err.stack}` : ""
      }`;
    } finally {
      await s.close();
    }
  };
  await load("open", () => Session.open(path, { dataDir }));
  await load(
    "open { window: false }",
    () => Session.open(path, { dataDir, window: false }),
  );
  if (search) {
    await load(
      "open without dataDir",
      () => Session.open(path, { checkpoints: false }),
    );
  }
  await load(
    "fromStream",
    () =>
      Session.fromStream(new Blob([bytes as BlobPart]).stream(), { dataDir }),
  );
  if (contexts.length === 2) {
    // The windowed open must rebuild exactly the full read's context:
    // messages, models, thinking level, labels, active path and its end.
    const [w, f] = contexts as [typeof contexts[0], typeof contexts[0]];
    if (canonical(w.messages) !== canonical(f.messages)) {
      if (duplicates) result.windowDuplicateDiffers = true;
      result.failure ??=
        "the windowed and the full open rebuilt different messages";
    }
    result.windowDiffers = canonical(w) !== canonical(f);
    if (result.windowDiffers) {
      result.failure ??=
        "the windowed and the full open rebuilt different contexts";
    }
  }
  if (append && result.loads > 0) {
    await _appendAfter(path, dataDir, bytes, result);
  }
  if (search) await _crossCheck(dataDir, path, result);
  const touched = _takeTouched();
  result.touched = touched.length;
  const outside = touched.filter((p) => !_inside(root, p));
  if (outside.length > 0) {
    result.failure ??= `touched paths outside the temp dir: ${
      outside.join(", ")
    }`;
  }
  return result;
}

/**
 * The usage report and searches for words of the file, from the files and
 * through an index made for the case: each reader of the damaged file (the
 * usage pass, the scan, the index's refresh) must see the same entries.
 */
async function _crossCheck(
  dataDir: string,
  path: string,
  result: CaseResult,
): Promise<void> {
  const quiet = { onWarning: () => {}, onSkip: () => {} };
  // The next case writes the same path in place, often within the same
  // millisecond and at the same size. An index left behind checks such a
  // file's head and the 4 KiB before its row's offset (its row is
  // unsettled), as it checks any changed file; a case that differs only
  // between those is a rewrite in place, which an index of stats and tail
  // hashes does not see (omp writes a new file and renames it).
  const drop = async () => {
    for (const suffix of ["", "-wal", "-shm"]) {
      await Deno.remove(join(dataDir, `index.sqlite${suffix}`)).catch(() => {});
    }
  };
  await drop();
  try {
    const files = await reported(dataDir, { ...quiet, index: false });
    {
      using index = await SessionIndex.open(dataDir, quiet);
      await index.refresh();
    }
    const indexed = await reported(dataDir, quiet);
    if (indexed.source !== "index") {
      result.failure ??= "the usage report did not use the index made for it";
      return;
    }
    const { cost: a, ...fromFiles } = files.totals;
    const { cost: b, ...fromIndex } = indexed.totals;
    if (
      canonical(fromFiles) !== canonical(fromIndex) ||
      Math.abs(a - b) > 1e-9 * Math.max(1, Math.abs(a))
    ) {
      result.failure ??= `usage from the files ${
        canonical(files.totals)
      } and through the index ${canonical(indexed.totals)} differ`;
      return;
    }
    for (const word of _words(await Deno.readFile(path))) {
      const scanned = await searched(dataDir, word, { index: false });
      const found = await searched(dataDir, word, quiet);
      if (!found.indexed || canonical(scanned.hits) !== canonical(found.hits)) {
        result.failure ??= `a search for "${word}" found ${
          canonical(scanned.hits)
        } scanning and ${canonical(found.hits)} through the index`;
        return;
      }
    }
    result.crossed = true;
  } catch (err) {
    result.failure ??= `the cross-check threw ${String(err)}${
      err instanceof Error ? `\n${err.stack}` : ""
    }`;
  } finally {
    await drop();
  }
}

/** Three words of the file's text to search for (the same ones for the same bytes). */
function _words(bytes: Uint8Array): string[] {
  const text = new TextDecoder().decode(bytes);
  const words = [...new Set(text.match(/[A-Za-z]{4,12}/g) ?? [])];
  if (words.length === 0) return ["zqxjvkw"];
  const at = (k: number) => words[(bytes.length * k + k) % words.length]!;
  return [...new Set([at(1), at(7), at(13)])];
}

/**
 * The next append to a damaged file: the earlier bytes stay, and the new
 * entry is the leaf and the last message, both ways of opening. A version 1
 * or 2 file is migrated in place first; refusing a file of a newer version
 * (TypeError) is allowed.
 */
async function _appendAfter(
  path: string,
  dataDir: string,
  bytes: Uint8Array,
  result: CaseResult,
): Promise<void> {
  const text = "appended by the fuzzer ✓";
  let id: string;
  let migrated = false;
  try {
    await using s = await Session.open(path, { dataDir });
    migrated = s.migrated;
    id = (await s.appendMessage({ role: "user", content: text })).id;
  } catch (err) {
    if (err instanceof TypeError && /version/.test(err.message)) return;
    result.failure ??= `append threw ${String(err)}${
      err instanceof Error ? `\n${err.stack}` : ""
    }`;
    return;
  }
  result.appended = true;
  const after = await Deno.readFile(path);
  // A version 1 or 2 file is rewritten at version 3 by its first append (as
  // omp does): only then may earlier bytes change; the checks below still hold.
  if (!migrated && !bytes.every((b, i) => after[i] === b)) {
    result.failure ??= "the append changed earlier bytes";
  }
  for (const window of [true, false]) {
    try {
      await using s = await Session.open(path, { dataDir, window });
      const last = s.buildContext().messages.at(-1) as
        | { content?: unknown }
        | undefined;
      if (s.leafId !== id || last?.content !== text) {
        result.failure ??=
          `after the append (window ${window}) the leaf is ${s.leafId}, not ${id}, or the last message is not the new one`;
      }
    } catch (err) {
      result.failure ??= `reopening after the append threw ${String(err)}`;
    }
  }
}

/** JSON with object keys sorted, to compare values whatever their key order. */
export function canonical(value: unknown): string {
  return JSON.stringify(
    value,
    (_k, v) =>
      v !== null && typeof v === "object" && !Array.isArray(v)
        ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) =>
            a < b ? -1 : a > b ? 1 : 0
          ),
        )
        : v,
  );
}

function _inside(root: string, path: string): boolean {
  const abs = path.startsWith("/") ? path : join(Deno.cwd(), path);
  return abs === root || abs.startsWith(`${root}/`);
}

/** A message to the worker. */
interface _Request {
  id: number;
  bytes: Uint8Array;
  mayThrow: boolean;
  search: boolean;
  append: boolean;
  walk: BackwardLinesBlocks;
  /** Self-checks of the watchdogs: touch this path first, or never end. */
  probe?: { touch?: string; hang?: boolean } | undefined;
}

/** Whether this module runs as a worker. */
const _IN_WORKER = typeof (globalThis as { WorkerGlobalScope?: unknown })
      .WorkerGlobalScope !== "undefined" &&
  globalThis instanceof
    (globalThis as unknown as { WorkerGlobalScope: typeof Object })
      .WorkerGlobalScope;

if (_IN_WORKER) {
  const root = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "xdev-fuzz-" }),
  );
  await Deno.mkdir(join(root, "agent", "sessions", "--case--"), {
    recursive: true,
  });
  await Deno.mkdir(join(root, "agent", "blobs"));
  for await (const e of Deno.readDir(FIXTURE_BLOBS)) {
    await Deno.copyFile(
      new URL(e.name, FIXTURE_BLOBS),
      join(root, "agent", "blobs", e.name),
    );
  }
  _installRecorder();
  const scope = globalThis as unknown as {
    onmessage: ((e: MessageEvent) => void) | null;
    postMessage(m: unknown): void;
  };
  scope.onmessage = async (e: MessageEvent) => {
    const req = e.data as _Request | "close";
    if (req === "close") {
      await Deno.remove(root, { recursive: true });
      scope.postMessage({ closed: true });
      return;
    }
    if (req.probe?.hang) { for (;;) { /* a case that never ends */ } }
    const result = await checkBytes(
      root,
      req.bytes,
      req.mayThrow,
      req.search,
      req.probe?.touch,
      req.append,
      req.walk,
    );
    scope.postMessage({ id: req.id, result });
  };
  scope.postMessage({ ready: true, root });
}

// --------------------------------------------------------- the main side

/** Runs cases in a worker, each with a timeout; a case past it restarts the worker. */
export class CaseRunner {
  #worker: Worker | undefined;
  #root = "";
  #next = 0;
  #waiting = new Map<number, (r: CaseResult) => void>();
  /** Temp dirs of workers that were terminated (removed at close). */
  #orphans: string[] = [];

  async #start(): Promise<Worker> {
    const worker = new Worker(import.meta.url, { type: "module" });
    const ready = Promise.withResolvers<void>();
    worker.onmessage = (e: MessageEvent) => {
      const data = e.data as {
        ready?: boolean;
        root?: string;
        id?: number;
        result?: CaseResult;
      };
      if (data.ready) {
        this.#root = data.root!;
        ready.resolve();
      } else if (data.id !== undefined) {
        this.#waiting.get(data.id)?.(data.result!);
        this.#waiting.delete(data.id);
      }
    };
    worker.onerror = (e) => {
      e.preventDefault();
      ready.reject(new Error(`the fuzz worker failed: ${e.message}`));
    };
    await ready.promise;
    this.#worker = worker;
    return worker;
  }

  /** Runs one case; a result with `failure` set when it broke a property or ran past `timeoutMs`. */
  async run(
    bytes: Uint8Array,
    mayThrow: boolean,
    timeoutMs: number,
    options: {
      search?: boolean;
      append?: boolean;
      walk?: BackwardLinesBlocks;
      probe?: _Request["probe"];
    } = {},
  ): Promise<CaseResult> {
    const worker = this.#worker ?? await this.#start();
    const id = this.#next++;
    const done = new Promise<CaseResult>((resolve) =>
      this.#waiting.set(id, resolve)
    );
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), timeoutMs);
    });
    worker.postMessage(
      {
        id,
        bytes,
        mayThrow,
        search: options.search ?? true,
        append: options.append ?? false,
        walk: options.walk ?? {},
        probe: options.probe,
      } satisfies _Request,
    );
    const result = await Promise.race([done, late]);
    clearTimeout(timer);
    if (result !== undefined) return result;
    this.#waiting.delete(id);
    worker.terminate();
    this.#worker = undefined;
    this.#orphans.push(this.#root);
    return {
      failure: `the case ran past its ${timeoutMs} ms timeout (a hang?)`,
      syntaxError: false,
      loads: 0,
      entries: 0,
      issues: 0,
      touched: 0,
      windowDiffers: false,
    };
  }

  /** Stops the worker and removes its temp dirs. */
  async close(): Promise<void> {
    const worker = this.#worker;
    if (worker !== undefined) {
      const closed = Promise.withResolvers<void>();
      worker.onmessage = () => closed.resolve();
      worker.postMessage("close");
      await closed.promise;
      worker.terminate();
      this.#worker = undefined;
    }
    for (const dir of this.#orphans) {
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  }
}

/** Figures of a run. */
export interface FuzzStats {
  cases: number;
  loads: number;
  entries: number;
  issues: number;
  syntaxErrors: number;
  touched: number;
  /** Cases whose windowed and full opens rebuilt contexts that differ beyond the messages (reported, not a failure). */
  windowDiffers: number;
  /** Of those, cases whose messages differ too, in a file with a duplicate id (a known bug, reported). */
  windowDuplicateDiffers: number;
  /** Cases whose damaged file was appended to and checked again. */
  appends: number;
  /** Cases whose usage and searches agreed from the files and through an index. */
  crossed: number;
  /** Cases per mutation kind. */
  kinds: Record<string, number>;
  /** Cases per walk: the library's own blocks, tiny ones. */
  walks: Record<string, number>;
}

/** Options of {@linkcode runFuzz}. */
export interface RunFuzzOptions {
  numRuns: number;
  seed: number;
  /** Per case, ms. Default 20,000 (a 4 MB line loaded four times fits well inside). */
  timeoutMs?: number;
  /** Called after every case. */
  onCase?: (stats: FuzzStats) => void;
  /** Replay one counterexample (`path` from a failure report). */
  path?: string;
  /**
   * Shrinking a failure stops after this many ms (each attempt may run to
   * its timeout): the smallest case found by then is reported. Default
   * 120,000.
   */
  shrinkMs?: number;
}

/**
 * Runs the property over `numRuns` cases from `seed`; returns fast-check's
 * report (counterexample, seed, path on failure) and the run's figures.
 */
export async function runFuzz(
  fixtures: Fixture[],
  options: RunFuzzOptions,
): Promise<{ details: fc.RunDetails<[FuzzCase]>; stats: FuzzStats }> {
  const runner = new CaseRunner();
  const stats: FuzzStats = {
    cases: 0,
    loads: 0,
    entries: 0,
    issues: 0,
    syntaxErrors: 0,
    touched: 0,
    windowDiffers: 0,
    windowDuplicateDiffers: 0,
    appends: 0,
    crossed: 0,
    kinds: {},
    walks: {},
  };
  const timeoutMs = options.timeoutMs ?? 20_000;
  // Shrinking reruns smaller failing cases, each up to its timeout: past
  // the bound every further candidate passes, so the smallest failure found
  // by then is the one reported.
  const shrinkMs = options.shrinkMs ?? 120_000;
  let failedAt: number | undefined;
  const property = fc.asyncProperty(caseArb(fixtures), async (c) => {
    if (failedAt !== undefined && performance.now() - failedAt > shrinkMs) {
      return;
    }
    const bytes = applyCase(fixtures, c);
    const mayThrow = !headerIntact(fixtures[c.fixture]!, bytes);
    const r = await runner.run(bytes, mayThrow, timeoutMs, {
      search: c.search,
      append: c.append,
      walk: c.walk,
    });
    stats.cases++;
    stats.loads += r.loads;
    stats.entries += r.entries;
    stats.issues += r.issues;
    stats.touched += r.touched;
    if (r.syntaxError) stats.syntaxErrors++;
    if (r.windowDiffers) stats.windowDiffers++;
    if (r.windowDuplicateDiffers) stats.windowDuplicateDiffers++;
    if (r.appended) stats.appends++;
    if (r.crossed) stats.crossed++;
    for (const m of c.mutations) {
      stats.kinds[m.kind] = (stats.kinds[m.kind] ?? 0) + 1;
    }
    const walk = c.walk.blockBytes === undefined ? "own blocks" : "tiny blocks";
    stats.walks[walk] = (stats.walks[walk] ?? 0) + 1;
    options.onCase?.(stats);
    if (r.failure !== undefined) {
      failedAt ??= performance.now();
      throw new Error(r.failure);
    }
  });
  try {
    const details = await fc.check(property, {
      numRuns: options.numRuns,
      seed: options.seed,
      endOnFailure: false,
      ...(options.path === undefined ? {} : { path: options.path }),
    });
    return { details, stats };
  } finally {
    await runner.close();
  }
}

/** A failure report: the counterexample, its fixture, and how to replay it. */
export function describeFailure(
  fixtures: Fixture[],
  details: fc.RunDetails<[FuzzCase]>,
): string {
  const c = details.counterexample?.[0];
  const lines = [
    `property failed after ${details.numRuns} cases (seed ${details.seed}, path ${details.counterexamplePath})`,
    `replay: deno run -A tools/fuzz.ts 1 --seed ${details.seed} --path ${details.counterexamplePath}`,
  ];
  if (c !== undefined) {
    lines.push(`fixture: ${fixtures[c.fixture]?.name}`);
    lines.push(`walk: ${JSON.stringify(c.walk)}`);
    lines.push(
      `mutations: ${
        JSON.stringify(
          c.mutations,
          (k, v) => (k === "bytes" && Array.isArray(v) && v.length > 16
            ? `[${v.length} bytes]`
            : v),
        )
      }`,
    );
  }
  const err = details.errorInstance;
  if (err instanceof Error) lines.push(`error: ${err.message}`);
  return lines.join("\n");
}
