/**
 * What `bench:heap` measures an open against, in the same fresh process
 * kind: the floor of any reader (the file's bytes read and its lines
 * found), the floor of any open that returns the context (the window's
 * lines decoded and parsed), and the process's page faults, their price
 * and its peak RSS.
 *
 * @module
 */

import { Session } from "../src/session/session.ts";

const MB = 1 << 20;
const round = (n: number): number => Math.round(n * 10) / 10;

/** This process's minor page faults so far (`/proc/self/stat`), or undefined off Linux. */
export function minorFaults(): number | undefined {
  try {
    const stat = Deno.readTextFileSync("/proc/self/stat");
    // Fields after the command's name (in parentheses, which may hold
    // spaces): state, ppid, pgrp, session, tty_nr, tpgid, flags, minflt.
    const n = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[7]);
    return Number.isFinite(n) ? n : undefined;
  } catch {
    return undefined;
  }
}

/**
 * What a page of fresh memory costs on this machine: 64 MB allocated and
 * each of its pages written once, the time over the faults it took. The
 * windowed open's own memory (the window's strings and objects, and the
 * young generation V8 grows for them) is paid at this price; the floor
 * touches almost none.
 */
export function pageFaultMicros():
  | { micros: number; faults: number }
  | undefined {
  const before = minorFaults();
  const t0 = performance.now();
  const bytes = new Uint8Array(64 * MB);
  for (let i = 0; i < bytes.length; i += 4096) bytes[i] = 1;
  const ms = performance.now() - t0;
  const after = minorFaults();
  if (before === undefined || after === undefined || after <= before) {
    return undefined;
  }
  return {
    micros: round(ms * 1000 / (after - before)),
    faults: after - before,
  };
}

export { peakRssMB } from "./_peak_rss.ts";

/**
 * The floor of any forward reader: read the file's bytes into a reused
 * 1 MiB buffer and find every line end. An open can do no better without
 * skipping bytes.
 */
export async function readAndFindLines(path: string): Promise<number> {
  using file = await Deno.open(path);
  const buffer = new Uint8Array(1 << 20);
  let lines = 0;
  for (let n = file.readSync(buffer); n !== null; n = file.readSync(buffer)) {
    const chunk = buffer.subarray(0, n);
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) {
      lines++;
    }
  }
  return lines;
}

/**
 * The floor of any open that returns the context: the lines from the
 * first that starts at or after `from` to the end read, each decoded and
 * parsed, the values kept. However an open finds the window, it must make these objects; in
 * a fresh process most of their cost is the fresh memory they take.
 *
 * @returns The values, to keep alive until measured.
 */
export async function parseTail(
  path: string,
  from: number,
): Promise<unknown[]> {
  using file = await Deno.open(path);
  const size = (await file.stat()).size;
  // From the byte before `from`: a line starts after its first "\n".
  const first = Math.max(0, Math.min(from, size) - 1);
  await file.seek(first, Deno.SeekMode.Start);
  const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  const values: unknown[] = [];
  let buffer = new Uint8Array(1 << 20); // reused, as the floor's
  let have = 0; // bytes in the buffer
  let start = -1; // where the next line starts in it, once known
  if (first === 0) start = 0;
  for (;;) {
    if (have === buffer.length) { // a line longer than the buffer
      const more = new Uint8Array(buffer.length * 2);
      more.set(buffer);
      buffer = more;
    }
    const n = file.readSync(buffer.subarray(have));
    if (n === null) break;
    const end = have + n;
    let i = buffer.indexOf(10, have);
    have = end;
    for (; i !== -1 && i < end; i = buffer.indexOf(10, i + 1)) {
      if (start >= 0 && i > start) {
        values.push(JSON.parse(decoder.decode(buffer.subarray(start, i))));
      }
      start = i + 1;
    }
    if (start < 0) {
      have = 0; // no line starts here yet
      continue;
    }
    buffer.copyWithin(0, start, end); // the line under way
    have = end - start;
    start = 0;
  }
  return values;
}

/**
 * Where the windowed open's entries start: the offset of the first line
 * whose entry it kept, found in the file's last `tail` bytes (the entries
 * kept are the file's last lines). Undefined when they start before.
 */
export async function windowStart(
  path: string,
  tail: number,
): Promise<number | undefined> {
  const s = await Session.open(path, { resolveBlobs: false });
  const kept = new Set(s.entries.map((e) => e.id));
  await s.close();
  using file = await Deno.open(path);
  const size = (await file.stat()).size;
  const from = Math.max(0, size - tail);
  const bytes = new Uint8Array(size - from);
  await file.seek(from, Deno.SeekMode.Start);
  for (let at = 0; at < bytes.length;) {
    const n = file.readSync(bytes.subarray(at));
    if (n === null) break;
    at += n;
  }
  const decoder = new TextDecoder();
  let start = from === 0 ? 0 : bytes.indexOf(10) + 1;
  for (
    let i = bytes.indexOf(10, start);
    i !== -1;
    i = bytes.indexOf(10, i + 1)
  ) {
    try {
      const id = JSON.parse(decoder.decode(bytes.subarray(start, i)))?.id;
      if (kept.has(id)) return from + start;
    } catch {
      // damaged: not an entry the open kept
    }
    start = i + 1;
  }
  return undefined;
}
