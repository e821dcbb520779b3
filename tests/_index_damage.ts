/**
 * Shared by the index tests (no tests of its own): real damage to a real
 * index file, made with `node:sqlite` and then its bytes. A page zeroed
 * where a table's root page is (the file opens, its header is sound, and
 * the table's first read fails), a file SQLite can only read, a data dir
 * of sessions to index.
 */
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { assistant, sessionBytes, user } from "./_session_files.ts";

/** The index file of a data dir. */
export function indexFile(dataDir: string): string {
  return join(dataDir, "index.sqlite");
}

/**
 * Zero the root page of `table` (4 KiB: the index's page size) in the
 * index of `dataDir`, after a checkpoint has moved every page into the
 * file. What SQLite then says of the table: "database disk image is
 * malformed" (`SQLITE_CORRUPT`), on its first read.
 *
 * @returns The page's number.
 */
export async function zeroRootPage(
  dataDir: string,
  table: string,
): Promise<number> {
  const path = indexFile(dataDir);
  const db = new DatabaseSync(path);
  let page: number;
  let size: number;
  try {
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    const row = db.prepare("SELECT rootpage FROM sqlite_master WHERE name = ?")
      .get(table) as { rootpage: number } | undefined;
    if (row === undefined) throw new Error(`no table ${table}`);
    page = row.rootpage;
    size = (db.prepare("PRAGMA page_size").get() as { page_size: number })
      .page_size;
  } finally {
    db.close();
  }
  const file = await Deno.open(path, { read: true, write: true });
  try {
    await file.seek((page - 1) * size, Deno.SeekMode.Start);
    await file.write(new Uint8Array(size));
  } finally {
    file.close();
  }
  return page;
}

/**
 * Make a file one SQLite can only read: mode 0444, and, for root (whom a
 * mode does not stop), the immutable attribute where `chattr` can set it.
 * Undefined where neither works (the test then says why it skips).
 *
 * @returns What undoes it, or undefined.
 */
export async function readOnly(
  path: string,
): Promise<AsyncDisposable | undefined> {
  await Deno.chmod(path, 0o444);
  let immutable = false;
  if (Deno.uid() === 0) {
    const set = await new Deno.Command("chattr", { args: ["+i", path] })
      .output().catch(() => undefined);
    immutable = set?.code === 0;
  }
  const undo = async () => {
    if (immutable) {
      await new Deno.Command("chattr", { args: ["-i", path] }).output();
    }
    await Deno.chmod(path, 0o600);
  };
  const writable = await Deno.open(path, { write: true }).then(
    (f) => (f.close(), true),
    () => false,
  );
  if (writable) {
    await undo();
    return undefined;
  }
  return { [Symbol.asyncDispose]: undo };
}

/**
 * `n` sessions in `<dataDir>/sessions/-w/`, `0.jsonl` on: each a user turn
 * saying `needle <i>` and an assistant's answer saying `needle` with its
 * usage; `timestamp` (ms) for every call when given (else each its own).
 *
 * @returns Their paths.
 */
export async function needleSessions(
  dataDir: string,
  n: number,
  timestamp?: number,
): Promise<string[]> {
  const dir = join(dataDir, "sessions", "-w");
  await Deno.mkdir(dir, { recursive: true });
  const paths: string[] = [];
  for (let i = 0; i < n; i++) {
    const path = join(dir, `${i}.jsonl`);
    const usage = {
      input: 10,
      output: 5,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 15,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0.01 },
    };
    await Deno.writeFile(
      path,
      sessionBytes([
        user(`u${i}`, null, `find the needle ${i}`),
        assistant(`a${i}`, `u${i}`, "a needle found", {
          usage,
          timestamp: timestamp ?? Date.UTC(2026, 9, 1, 9, 0, i % 60),
        }),
      ], { header: { ...HEADER_OF(i) } }),
    );
    paths.push(path);
  }
  return paths;
}

/** Each session its own id. */
function HEADER_OF(i: number): Record<string, unknown> {
  return {
    type: "session",
    version: 3,
    id: `01a0f000-0000-7000-8000-${i.toString(16).padStart(12, "0")}`,
    timestamp: "2026-10-01T09:00:00.000Z",
    cwd: "/home/dev/src/app",
  };
}

/** A line to append to a session: a user turn saying `text`. */
export function userLine(id: string, parentId: string, text: string): string {
  return `${JSON.stringify(user(id, parentId, text))}\n`;
}
