/**
 * One open and one context of a file, measured, in the process that runs
 * it (Deno, Node 22 or Bun): `bench/runtimes.ts` spawns it fresh for each
 * run and reads the JSON line it prints.
 *
 *     node --expose-gc bench/_open_child.ts ours|pi FILE [PI_ENTRY]
 *     bun bench/_open_child.ts ours|pi FILE [PI_ENTRY]
 *
 * It loads only the reader it measures (no `Deno`, no `using`, so Node 22
 * parses it), so the heap held is that reader's code and its session.
 * `PI_ENTRY` is pi's module, by default the one in `bench/peers/pi/`
 * (given when the child runs bundled, from another folder).
 *
 * @module
 */

import { statSync } from "node:fs";
import process from "node:process";
import { peakRssMB } from "./_peak_rss.ts";
import type { Session as OurSession } from "../src/session/session.ts";

export type Reader = "ours" | "pi" | "omp";

export interface Run {
  reader: Reader;
  runtime: string;
  file: string;
  bytes: number;
  openMs?: number;
  contextMs?: number;
  /** heapUsed after GC, before the open (the code loaded, no session). */
  heapBaseMB?: number;
  heapHeldMB?: number;
  /**
   * ArrayBuffer memory held after GC: outside V8's heapUsed (Node), inside
   * JSC's (Bun), so typed arrays a session keeps show only on Bun's heap.
   */
  buffersHeldMB?: number;
  peakRssMB?: number;
  messages?: number;
  error?: string;
}

const MB = 1 << 20;
const round = (n: number): number => Math.round(n * 10) / 10;
const PI_ENTRY = process.argv[4] ?? new URL(
  "./peers/pi/node_modules/@mariozechner/pi-coding-agent/dist/index.js",
  import.meta.url,
).href;

/** A full collection where the runtime offers one (Node needs --expose-gc). */
function gc(): void {
  const g = globalThis as {
    gc?: () => void;
    Bun?: { gc(full: boolean): void };
  };
  if (g.Bun !== undefined) g.Bun.gc(true);
  else g.gc?.();
}

function heapMB(): number {
  return round(process.memoryUsage().heapUsed / MB);
}

/** Size, modification time and inode: the open must leave them alone. */
function stamp(file: string): string {
  const s = statSync(file);
  return `${s.size}/${s.mtimeMs}/${s.ino}`;
}

/** The child: one open and one context of `file` by `reader`, measured. */
async function child(reader: "ours" | "pi", file: string): Promise<Run> {
  const g = globalThis as { Bun?: { version: string } };
  const run: Run = {
    reader,
    runtime: g.Bun ? `bun ${g.Bun.version}` : `node ${process.version}`,
    file,
    bytes: statSync(file).size,
  };
  const before = stamp(file);
  let kept: unknown;
  try {
    const open = reader === "ours" ? await oursOpen() : await piOpen();
    gc();
    run.heapBaseMB = heapMB();
    const t0 = performance.now();
    const session = await open.open(file);
    const t1 = performance.now();
    const messages = open.context(session);
    const t2 = performance.now();
    kept = session;
    gc();
    Object.assign(run, {
      openMs: round(t1 - t0),
      contextMs: round(t2 - t1),
      heapHeldMB: heapMB(),
      buffersHeldMB: round(process.memoryUsage().arrayBuffers / MB),
      messages,
    });
  } catch (err) {
    run.error = err instanceof Error
      ? `${err.name}: ${err.message}`
      : String(err);
  }
  if (stamp(file) !== before) run.error = "the open changed the file";
  const rss = peakRssMB();
  if (rss !== undefined) run.peakRssMB = rss;
  if (kept === file) console.error("unreachable"); // keeps `kept` alive
  return run;
}

interface Opener {
  open(file: string): Promise<unknown>;
  /** Builds the context; returns how many messages it holds. */
  context(session: unknown): number;
}

async function oursOpen(): Promise<Opener> {
  const { Session } = await import("../src/session/session.ts");
  return {
    open: (file) => Session.open(file),
    context: (s) =>
      (s as OurSession).buildContext()
        .messages.length,
  };
}

interface PiSessionManager {
  buildSessionContext(): { messages: unknown[] };
}

/** pi 0.73's open: `SessionManager.open(path)` (synchronous). */
async function piOpen(): Promise<Opener> {
  const pi = await import(PI_ENTRY) as {
    SessionManager: { open(path: string): PiSessionManager };
  };
  return {
    open: (file) => Promise.resolve(pi.SessionManager.open(file)),
    context: (s) =>
      (s as PiSessionManager).buildSessionContext().messages.length,
  };
}

console.log(
  JSON.stringify(
    await child(process.argv[2] as "ours" | "pi", process.argv[3]!),
  ),
);
