/**
 * Shared by the watch tests (no tests of its own): a follower driven step
 * by step, with a deadline on each step.
 */
import {
  type SessionEntry,
  watchSession,
  type WatchSessionOptions,
} from "../../mod.ts";

/** A follower of a file, its entries taken one at a time. */
export interface Following extends AsyncDisposable {
  /** The next entry, or a rejection after `ms` (default 10 s) without one. */
  next(ms?: number): Promise<SessionEntry>;
  /** True when no entry comes within `ms`. */
  quiet(ms: number): Promise<boolean>;
  /** The iteration's end: undefined when it ended, the error when it failed. */
  end(ms?: number): Promise<unknown>;
  /** Abort and wait for the iteration to end. */
  stop(): Promise<void>;
}

/**
 * Start following `path`, by default from its current size (the end, taken
 * now: what the test appends next is after it, however slow the start).
 *
 * @param path The file.
 * @param options As for `watchSession`, without the signal.
 */
export async function follow(
  path: string,
  options: Omit<WatchSessionOptions, "signal"> = {},
): Promise<Following> {
  const abort = new AbortController();
  const from = options.from ?? (await Deno.stat(path)).size;
  const it = watchSession(path, { ...options, from, signal: abort.signal });
  let pending: Promise<IteratorResult<SessionEntry, void>> | undefined = it
    .next();
  // Let the follower open the file and start watching.
  await new Promise((r) => setTimeout(r, 100));
  const take = async (ms: number) => {
    pending ??= it.next();
    const timer = new Promise<"timeout">((r) => {
      const id = setTimeout(() => r("timeout"), ms);
      const clear = () => clearTimeout(id);
      pending!.then(clear, clear);
    });
    const got = await Promise.race([pending, timer]);
    if (got === "timeout") return got;
    pending = undefined;
    return got;
  };
  const following: Following = {
    async next(ms = 10_000) {
      const got = await take(ms);
      if (got === "timeout") throw new Error(`no entry within ${ms} ms`);
      if (got.done) throw new Error("the following ended");
      return got.value;
    },
    async quiet(ms) {
      const got = await take(ms);
      if (got === "timeout") return true;
      if (!got.done) pending = Promise.resolve(got); // keep it for next()
      return false;
    },
    async end(ms = 10_000) {
      try {
        const got = await take(ms);
        if (got === "timeout") return new Error(`still going after ${ms} ms`);
        return got.done ? undefined : new Error("an entry came instead");
      } catch (err) {
        return err;
      }
    },
    async stop() {
      abort.abort();
      try {
        if (pending !== undefined) await pending;
        await it.return();
      } catch {
        // It failed before: the tests look at that through end().
      }
    },
    [Symbol.asyncDispose]() {
      return following.stop();
    },
  };
  return following;
}

/** Append text (bytes as given) to a file. */
export async function append(path: string, text: string): Promise<void> {
  await Deno.writeTextFile(path, text, { append: true });
}
