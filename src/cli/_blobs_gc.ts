/**
 * `cli blobs gc` and `cli blobs restore`. The order of a gc is what makes it
 * safe beside writers: the blobs folder is listed first (a blob stored
 * after that is no candidate), then every file that may name a blob is read
 * (`store/_gc_sources.ts`, `store/_blob_refs.ts`); a candidate is a blob no
 * file names whose files have not changed within the grace period, and its
 * times are read again just before and after it is moved to the trash
 * (`store/_blob_trash.ts`), so a blob stored again meanwhile stays. With
 * `--yes` the whole run holds omp's `gc.lock`.
 *
 * @module
 */

import { join } from "node:path";
import { fs } from "../_fs.ts";
import {
  emptyTrashed,
  listTrash,
  moveToTrash,
  restoreTrashed,
  TRASH_FOLDER,
  type TrashedBlob,
  trashRunName,
} from "../store/_blob_trash.ts";
import { scanBlobRefs } from "../store/_blob_refs.ts";
import { withGcLock } from "../store/_gc_lock.ts";
import { gcSources } from "../store/_gc_sources.ts";
import { sessionsDir } from "../store/places.ts";
import {
  formatDuration,
  listBlobFolder,
  type Unreferenced,
  unreferenced,
} from "./_blobs.ts";
import { attempt, failure, printError, writeJson } from "./_command.ts";
import { formatBytes, plural, sanitizeLines } from "./_format.ts";
import type { CliIo } from "./_io.ts";
import { progressBar } from "./_progress.ts";

/** Items from which a progress bar is drawn (on a terminal). */
const _PROGRESS_FROM = 8;

/** How `cli blobs gc` runs. */
export interface GcRun {
  /** Move what it found to the trash (else only report). */
  yes: boolean;
  /** Print an object. */
  json: boolean;
  /** Blobs changed within this long are kept. */
  graceMs: number;
  /** Trashed blobs older than this are deleted. */
  keepTrashMs: number;
}

/** What a gc found, before it acts. */
interface Plan {
  dir: string;
  files: number;
  blobs: number;
  referenced: Set<string>;
  garbage: Unreferenced[];
  recent: Unreferenced[];
  restore: TrashedBlob[];
  expired: TrashedBlob[];
  unreadable: string[];
  missing: string[];
  unknown: string[];
}

/**
 * `cli blobs gc`.
 *
 * @param dataDir The data dir.
 * @param run The flags.
 * @param io Where output goes.
 * @returns The exit code: 1 when a file could not be read or a move failed.
 */
export async function runGc(
  dataDir: string,
  run: GcRun,
  io: CliIo,
): Promise<number> {
  const work = async () => {
    const now = Date.now();
    const plan = await _plan(dataDir, now, run, io);
    const blocked = plan.unreadable.length > 0;
    const acted = run.yes && !blocked
      ? await _act(plan, now, run.graceMs)
      : undefined;
    _report(plan, run, acted, io);
    for (const u of plan.unreadable) printError(io, u);
    if (blocked) {
      printError(
        io,
        `Cannot collect the blobs of "${dataDir}": ${
          plural(plan.unreadable.length, "file")
        } could not be read, so nothing was moved or deleted`,
      );
    }
    for (const f of acted?.failures ?? []) printError(io, f);
    return blocked || (acted?.failures.length ?? 0) > 0 ? 1 : 0;
  };
  if (!run.yes) return await work();
  return await attempt(
    `collect the blobs of "${dataDir}"`,
    () => withGcLock(dataDir, work),
  );
}

async function _plan(
  dataDir: string,
  now: number,
  run: GcRun,
  io: CliIo,
): Promise<Plan> {
  const dir = join(dataDir, "blobs");
  const action = `collect the blobs of "${dataDir}"`;
  // Blobs first: one stored while the sessions are read is not a candidate.
  const listing = await listBlobFolder(dir, "collect");
  const trash = await attempt(action, () => listTrash(dir));
  // Without sessions every blob would look unreferenced: refuse.
  await attempt(action, async () => {
    const info = await fs().stat(sessionsDir(dataDir));
    if (info.kind !== "directory") throw fs().error("ENOTDIR", "not a folder");
  });
  const sources = await attempt(action, () => gcSources(dataDir, dir));
  const referenced = new Set<string>();
  const unreadable = [...sources.errors];
  const bar = progressBar(io, {
    total: sources.files.length,
    unit: "sessions",
    minimum: _PROGRESS_FROM,
  });
  for (const [i, file] of sources.files.entries()) {
    bar.update(i);
    try {
      await scanBlobRefs(file, referenced);
    } catch (err) {
      unreadable.push(failure(`read "${file}"`, err).message);
    }
  }
  bar.finish(sources.files.length);
  const all = await unreferenced(dir, listing, referenced);
  const cutoff = now - run.graceMs;
  return {
    dir,
    files: sources.files.length,
    blobs: listing.blobs.size,
    referenced,
    garbage: all.filter((g) => g.modifiedMs <= cutoff),
    recent: all.filter((g) => g.modifiedMs > cutoff),
    restore: trash.blobs.filter((t) => referenced.has(t.hex)),
    expired: trash.blobs.filter((t) =>
      !referenced.has(t.hex) && t.trashedAt <= now - run.keepTrashMs
    ),
    unreadable,
    missing: sources.missing,
    unknown: [
      ...listing.unknown,
      ...trash.unknown.map((n) => `${TRASH_FOLDER}/${n}`),
    ],
  };
}

/** What a gc did. */
interface Acted {
  /** The run's trash folder, when something went there. */
  trash: string | undefined;
  /** Candidates moved. */
  moved: Unreferenced[];
  /** Candidates changed during the run, left in place. */
  touched: Unreferenced[];
  failures: string[];
}

async function _act(plan: Plan, now: number, graceMs: number): Promise<Acted> {
  const run = trashRunName(now);
  const acted: Acted = {
    trash: undefined,
    moved: [],
    touched: [],
    failures: [],
  };
  const cutoff = now - graceMs;
  for (const g of plan.garbage) {
    try {
      const how = await moveToTrash(plan.dir, run, g.files, cutoff);
      if (how === "moved") acted.moved.push(g);
      if (how === "recent") acted.touched.push(g);
    } catch (err) {
      acted.failures.push(
        failure(`move blob ${g.hex} to the trash`, err).message,
      );
    }
  }
  if (acted.moved.length > 0) acted.trash = join(plan.dir, TRASH_FOLDER, run);
  for (const t of plan.restore) {
    try {
      await restoreTrashed(plan.dir, t);
    } catch (err) {
      acted.failures.push(failure(`restore blob ${t.hex}`, err).message);
    }
  }
  for (const t of plan.expired) {
    try {
      await emptyTrashed(plan.dir, t);
    } catch (err) {
      acted.failures.push(
        failure(`empty blob ${t.hex} from the trash`, err).message,
      );
    }
  }
  return acted;
}

function _entry(g: Unreferenced) {
  return { hex: g.hex, bytes: g.bytes, files: g.files };
}

function _trashEntry(t: TrashedBlob) {
  return { hex: t.hex, bytes: t.bytes, files: t.files, run: t.run };
}

function _report(
  plan: Plan,
  run: GcRun,
  acted: Acted | undefined,
  io: CliIo,
): void {
  const kept = [...plan.recent, ...(acted?.touched ?? [])];
  const moved = acted?.moved ?? [];
  const bytes = plan.garbage.reduce((n, g) => n + g.bytes, 0);
  if (run.json) {
    writeJson(io, {
      dir: plan.dir,
      sessions: plan.files,
      blobs: plan.blobs,
      referenced: plan.referenced.size,
      unreferenced: plan.garbage.map(_entry),
      bytes,
      deleted: acted !== undefined && acted.failures.length === 0 &&
        moved.length === plan.garbage.length,
      trash: acted?.trash ?? null,
      moved: moved.map((g) => g.hex),
      kept: kept.map((g) => ({
        ..._entry(g),
        modified: new Date(g.modifiedMs).toISOString(),
      })),
      graceMs: run.graceMs,
      restored: plan.restore.map(_trashEntry),
      emptied: plan.expired.map(_trashEntry),
      keepTrashMs: run.keepTrashMs,
      acted: acted !== undefined,
      unreadable: plan.unreadable,
      missing: plan.missing,
      unknown: plan.unknown,
    });
    return;
  }
  const lines = [
    `${plan.blobs} blobs in ${plan.dir}, ${
      plural(plan.files, "session")
    } scanned: ${plan.garbage.length} unreferenced (${formatBytes(bytes)})`,
    ...plan.garbage.map((g) =>
      `${g.hex}  ${formatBytes(g.bytes).padStart(9)}${_twinsText(g)}`
    ),
  ];
  const grace = formatDuration(run.graceMs);
  if (kept.length > 0) {
    lines.push(
      `kept ${
        plural(kept.length, "unreferenced blob")
      } changed in the last ${grace} (the grace period):`,
      ...kept.map((g) => `  ${g.hex}  ${new Date(g.modifiedMs).toISOString()}`),
    );
  }
  const will = acted === undefined ? "would put back" : "put back";
  if (plan.restore.length > 0) {
    lines.push(
      `${will} ${
        plural(plan.restore.length, "trashed blob")
      } a session names again:`,
      ...plan.restore.map((t) => `  ${t.hex}`),
    );
  }
  if (plan.expired.length > 0) {
    const n = plan.expired.reduce((s, t) => s + t.bytes, 0);
    lines.push(
      `${acted === undefined ? "would delete" : "deleted"} ${
        plural(plan.expired.length, "blob")
      } trashed more than ${formatDuration(run.keepTrashMs)} ago, for good (${
        formatBytes(n)
      })`,
    );
  }
  if (plan.missing.length > 0) {
    lines.push(
      `skipped ${plural(plan.missing.length, "registered session file")} that ${
        plan.missing.length === 1 ? "is" : "are"
      } not there:`,
      ...plan.missing.map((p) => `  ${p}`),
    );
  }
  if (plan.garbage.length > 0) {
    lines.push(
      plan.unreadable.length > 0
        ? "nothing was moved: some files could not be read"
        : acted === undefined
        ? "run with --yes to move them to the trash"
        : moved.length > 0
        ? `moved ${
          plural(moved.length, "blob")
        } to ${acted.trash} (cli blobs restore puts ${
          moved.length === 1 ? "it" : "them"
        } back)`
        : "nothing was moved",
    );
  }
  io.stdout(`${sanitizeLines(lines.join("\n"))}\n`);
}

/** ` + .png` for the twins moved with a blob (` .png only` when the blob is gone). */
function _twinsText(g: Unreferenced): string {
  const exts = g.files.filter((f) => f !== g.hex).map((f) => f.slice(64));
  if (exts.length === 0) return "";
  return g.files[0] === g.hex
    ? `  + ${exts.join(" ")}`
    : `  ${exts.join(" ")} only`;
}

/**
 * `cli blobs restore`: every trashed blob back into the blobs folder (a file
 * whose name is taken there stays in the trash, for gc to empty).
 *
 * @param dataDir The data dir.
 * @param json Print an object.
 * @param io Where output goes.
 * @returns The exit code: 1 when a move failed.
 */
export async function runRestore(
  dataDir: string,
  json: boolean,
  io: CliIo,
): Promise<number> {
  const dir = join(dataDir, "blobs");
  const action = `restore the blobs of "${dataDir}"`;
  const work = async () => {
    const trash = await listTrash(dir);
    const restored: string[] = [];
    const failures: string[] = [];
    for (const t of trash.blobs) {
      try {
        if ((await restoreTrashed(dir, t)).length > 0) restored.push(t.hex);
      } catch (err) {
        failures.push(failure(`restore blob ${t.hex}`, err).message);
      }
    }
    const left = trash.blobs.length - restored.length;
    if (json) {
      writeJson(io, { dir, restored, left, unknown: trash.unknown });
    } else {
      const unique = new Set(restored).size;
      io.stdout(
        `${
          sanitizeLines(
            `restored ${plural(unique, "blob")} from ${
              join(dir, TRASH_FOLDER)
            }${
              left > 0 ? ` (${left} left: already in the store, or failed)` : ""
            }`,
          )
        }\n`,
      );
    }
    for (const f of failures) printError(io, f);
    return failures.length > 0 ? 1 : 0;
  };
  return await attempt(action, () => withGcLock(dataDir, work));
}
