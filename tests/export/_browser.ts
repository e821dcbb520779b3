/**
 * Shared by the export's browser tests (no tests of its own): whether
 * Chromium can run here, and `loadPages`, which loads pages in it from a
 * child Deno process. The child may reach 127.0.0.1 (the DevTools socket),
 * which the test task's permissions do not allow; it is this same file,
 * run as a program: jobs as JSON on standard input, reports as JSON on
 * standard output.
 */
import { Browser } from "./_chromium.ts";

const _CANDIDATES = [
  Deno.env.get("CHROMIUM_PATH"),
  "/usr/bin/chromium",
  "/usr/lib/chromium/chromium",
  "/usr/bin/chromium-browser",
];

/** A browser found and started, or why not. */
export type BrowserCheck = { ok: true; path: string } | {
  ok: false;
  reason: string;
};

/**
 * Whether the browser can run here: installed, and it starts. The answer
 * is computed once per process.
 */
export function checkBrowser(): Promise<BrowserCheck> {
  _check ??= _probe();
  return _check;
}
let _check: Promise<BrowserCheck> | undefined;

async function _probe(): Promise<BrowserCheck> {
  let path: string | undefined;
  for (const p of _CANDIDATES) {
    if (p === undefined) continue;
    try {
      if ((await Deno.stat(p)).isFile) {
        path = p;
        break;
      }
    } catch {
      // not there: try the next
    }
  }
  if (path === undefined) {
    return {
      ok: false,
      reason:
        "no Chromium found (/usr/bin/chromium; apt-get install chromium, or set CHROMIUM_PATH)",
    };
  }
  try {
    const out = await new Deno.Command(path, {
      args: ["--headless", "--no-sandbox", "--version"],
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!out.success) throw new Error(`exit code ${out.code}`);
    return { ok: true, path };
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return { ok: false, reason: `Chromium at ${path} does not run: ${why}` };
  }
}

/** A page to load, and what to do there. */
export interface PageJob {
  /** A `file://` URL. */
  url: string;
  /** Emulate a dark color scheme. */
  dark?: boolean;
  /** The viewport's width in CSS pixels (default 1200; below 600 a phone's). */
  width?: number;
  /** The viewport's height (default 2000). */
  height?: number;
  /** Expressions to evaluate once it has loaded, values returned as JSON. */
  evaluate?: string[];
  /** Where to save a PNG of the viewport, after the expressions ran. */
  screenshot?: string;
}

/** What a page reported and gave. */
export interface PageReport {
  /** Console errors, exceptions, dialogs and log errors, in order. */
  errors: string[];
  /** The values of {@linkcode PageJob.evaluate}, in order. */
  values: unknown[];
  /** The URL of every request the page made, its own load first. */
  requests: string[];
}

/**
 * Load pages, one after the other, in one headless Chromium started in a
 * child process.
 *
 * @param jobs The pages.
 * @returns One report per page.
 */
export async function loadPages(jobs: PageJob[]): Promise<PageReport[]> {
  const check = await checkBrowser();
  if (!check.ok) throw new Error(check.reason);
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-config",
      "--allow-net=127.0.0.1",
      "--allow-read",
      "--allow-write",
      "--allow-run",
      "--allow-env",
      new URL(import.meta.url).pathname,
      check.path,
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(JSON.stringify(jobs)));
  await writer.close();
  const out = await child.output();
  const text = new TextDecoder().decode(out.stdout);
  if (!out.success) {
    const err = new TextDecoder().decode(out.stderr);
    throw new Error(`the browser child failed: ${err.slice(-2000)}`);
  }
  return JSON.parse(text) as PageReport[];
}

async function _child(path: string): Promise<void> {
  const jobs = JSON.parse(
    await new Response(Deno.stdin.readable).text(),
  ) as PageJob[];
  const reports: PageReport[] = [];
  await using browser = await Browser.launch(path);
  for (const job of jobs) {
    const page = await browser.load(job.url, {
      dark: job.dark === true,
      ...(job.width === undefined ? {} : { width: job.width }),
      ...(job.height === undefined ? {} : { height: job.height }),
    });
    const values: unknown[] = [];
    for (const e of job.evaluate ?? []) values.push(await page.evaluate(e));
    if (job.screenshot !== undefined) await page.screenshot(job.screenshot);
    reports.push({ errors: page.errors, values, requests: page.requests });
  }
  console.log(JSON.stringify(reports));
}

if (import.meta.main) await _child(Deno.args[0]!);
