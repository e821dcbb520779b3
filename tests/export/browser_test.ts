/**
 * The HTML export in a real browser: headless Chromium loads each page with
 * no console error, every message of the context is in the DOM in order, a
 * hostile session renders inert, and screenshots are kept in
 * `tests/export/artifacts/` (git-ignored). Where Chromium is not installed
 * or does not run, each test says why and is ignored (`.ci/run` installs it).
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { join } from "node:path";
import { type ContextMessage, exportSession, Session } from "../../mod.ts";
import { checkBrowser, loadPages, type PageJob } from "./_browser.ts";
import {
  HOSTILE_TEXT,
  hostileSession,
  longSession,
  richSession,
  testSession,
} from "./_sessions.ts";

const browser = await checkBrowser();
const ignore = !browser.ok;
if (!browser.ok) {
  console.log(`browser tests ignored: ${browser.reason}`);
}
const ARTIFACTS = new URL("./artifacts/", import.meta.url).pathname;
const FIXTURE = new URL("../../fixtures/omp/s1-main.jsonl", import.meta.url)
  .pathname;

/** Text that identifies a message, as the page shows it (see `_shown`). */
function _probe(m: ContextMessage): string {
  const r = m as Record<string, unknown>;
  if (typeof r.summary === "string") return r.summary;
  const content = r.content;
  if (typeof content === "string") return content;
  for (const b of Array.isArray(content) ? content : []) {
    if (b?.type === "text") return String(b.text);
    if (b?.type === "toolCall") return String(b.name);
    if (b?.type === "thinking") return String(b.thinking);
  }
  return "";
}

/** Text without Markdown's marks and with runs of space as one. */
function _shown(text: string): string {
  return text.replace(/[`#*]/g, "").replace(/\s+/g, " ").trim();
}

/** The text of each message article in the page, in order. */
const ARTICLES =
  `[...document.querySelectorAll("article.msg")].map((a) => a.textContent)`;

async function _export(
  path: string,
  out: string,
  options: { tree?: boolean; pageBytes?: number } = {},
) {
  return await exportSession(path, { out, ...options });
}

Deno.test({
  name:
    "exportSession() HTML loads in Chromium with no console error, every context message in the DOM in order",
  ignore,
  fn: async () => {
    await Deno.mkdir(ARTIFACTS, { recursive: true });
    await using rich = await testSession(richSession());
    const cases: { name: string; messages: ContextMessage[] }[] = [];
    const jobs: PageJob[] = [];
    for (const [name, path] of [["s1-main", FIXTURE], ["rich", rich.path]]) {
      await using session = await Session.open(path!);
      cases.push({ name: name!, messages: session.buildContext().messages });
      const r = await _export(path!, join(rich.out, `${name}.html`));
      for (const dark of [false, true]) {
        jobs.push({
          url: `file://${r.files[0]}`,
          dark,
          evaluate: [
            ARTICLES,
            "[...document.images].map((i) => i.naturalWidth)",
          ],
          screenshot: join(ARTIFACTS, `${name}${dark ? "-dark" : ""}.png`),
        });
      }
    }
    const reports = await loadPages(jobs);
    for (const [j, report] of reports.entries()) {
      const { name, messages } = cases[Math.floor(j / 2)]!;
      deepEqual(report.errors, [], name);
      const [shown, images] = report.values as [string[], number[]];
      equal(shown.length, messages.length, name);
      for (const [i, m] of messages.entries()) {
        const probe = _shown(_probe(m)).slice(0, 60);
        ok(_shown(shown[i]!).includes(probe), `${name} #${i}: ${probe}`);
      }
      ok(images.length > 0 && images.every((w) => w > 0), name);
    }
  },
});

/** What a page holds that could run or reach out. */
const INERT = `(() => {
  const all = [...document.querySelectorAll("*")];
  const attrs = all.flatMap((e) => [...e.attributes].map((a) => [e.tagName, a.name, a.value]));
  return {
    scripts: document.querySelectorAll("script, iframe, object, embed, form, base, link, svg").length,
    handlers: attrs.filter(([, n]) => n.startsWith("on")),
    urls: attrs.filter(([, , v]) => /^\\s*(javascript|vbscript|data:text)/i.test(v)),
    images: [...document.images].length,
    articles: document.querySelectorAll("article.msg").length,
    bidi: /[\\u202a-\\u202e\\u2066-\\u2069\\u200e\\u200f\\u061c]/.test(document.documentElement.outerHTML),
    shown: document.body.textContent.includes(${
  JSON.stringify(HOSTILE_TEXT.slice(0, 80))
}),
  };
})()`;

Deno.test({
  name:
    "exportSession() HTML of a hostile session stays inert in Chromium: no script, no handler, no javascript: URL, no dialog, no bidirectional control",
  ignore,
  fn: async () => {
    await Deno.mkdir(ARTIFACTS, { recursive: true });
    await using t = await testSession(hostileSession());
    const jobs: PageJob[] = [];
    for (const tree of [false, true]) {
      const r = await _export(t.path, join(t.out, `h${tree}.html`), { tree });
      jobs.push({ url: `file://${r.files[0]}`, evaluate: [INERT] });
    }
    jobs[0]!.screenshot = join(ARTIFACTS, "hostile.png");
    for (const report of await loadPages(jobs)) {
      deepEqual(report.errors, []);
      deepEqual(report.values, [{
        scripts: 0,
        handlers: [],
        urls: [],
        images: 0,
        articles: 5,
        bidi: false,
        shown: true,
      }]);
    }
  },
});

Deno.test({
  name:
    "exportSession() HTML of a tree and of split pages loads in Chromium with no console error",
  ignore,
  fn: async () => {
    await Deno.mkdir(ARTIFACTS, { recursive: true });
    await using t = await testSession(longSession(120));
    const tree = await _export(FIXTURE, join(t.out, "tree.html"), {
      tree: true,
    });
    const paged = await _export(t.path, join(t.out, "paged.html"), {
      pageBytes: 32 * 1024,
    });
    ok(paged.pages > 1);
    const [treeReport, ...pages] = await loadPages([
      {
        url: `file://${tree.files[0]}`,
        evaluate: [
          `document.querySelectorAll("details.branch article.msg").length`,
          // The screenshot shows the first branch, opened.
          `(() => {
            const branch = document.querySelector("details.branch");
            branch.open = true;
            branch.previousElementSibling.scrollIntoView();
          })()`,
        ],
        screenshot: join(ARTIFACTS, "tree.png"),
      },
      ...paged.files.map((f) => ({ url: `file://${f}`, evaluate: [ARTICLES] })),
    ]);
    deepEqual(treeReport!.errors, []);
    equal(treeReport!.values[0], 6); // the branch abandoned before the compaction
    let articles = 0;
    for (const [i, p] of pages.entries()) {
      deepEqual(p.errors, [], paged.files[i]);
      articles += (p.values[0] as string[]).length;
    }
    equal(articles, paged.messages);
  },
});
