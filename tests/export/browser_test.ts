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

/** Each tool call's kind and the text of the result nested under it. */
const CALLS = `(() => ({
  calls: [...document.querySelectorAll(".tool")].map((t) => [
    t.className,
    t.querySelector(":scope > article.tool-result")?.textContent ?? null,
  ]),
  results: document.querySelectorAll("article.tool-result").length,
}))()`;

Deno.test({
  name:
    "exportSession() HTML of a tree nests each tool result under its call in the DOM, as the active branch does",
  ignore,
  fn: async () => {
    await using t = await testSession(richSession());
    const jobs: PageJob[] = [];
    for (const tree of [false, true]) {
      const r = await _export(t.path, join(t.out, `c${tree}.html`), { tree });
      jobs.push({ url: `file://${r.files[0]}`, evaluate: [CALLS] });
    }
    for (const [i, report] of (await loadPages(jobs)).entries()) {
      deepEqual(report.errors, []);
      const { calls, results } = report.values[0] as {
        calls: [string, string | null][];
        results: number;
      };
      // The rich session's two calls (c1 read, c2 bash), each answered.
      equal(calls.length, 2, `tree: ${i === 1}`);
      ok(calls[0]![0].includes("tool-read"));
      ok(calls[0]![1]?.includes("File contents: export const x = 1;"));
      ok(calls[1]![0].includes("tool-bash"));
      ok(calls[1]![1]?.includes("Command failed: exit 1"));
      equal(results, 2, "no result outside its call");
    }
  },
});

/** What a page of a real session shows, counted in the DOM. */
const SHOWN = `(() => {
  const all = (s) => [...document.querySelectorAll(s)];
  const articles = all("article.msg");
  const links = all('a[href^="#entry-"]');
  const outline = document.querySelector("nav.outline");
  const folded = document.querySelector("details.outline");
  return {
    strong: all(".text strong").length,
    li: all(".text li").length,
    table: all(".text table").length,
    a: all(".text a[href]").length,
    diff: all(".tool-edit pre.diff .add, .tool-edit pre.diff .del").length,
    kinds: [...new Set(all(".tool").map((t) => t.className))].sort(),
    bash: all(".tool-bash pre.command").map((p) => p.textContent)[0] ?? "",
    read: all(".tool-read .tool-head code").map((c) => c.textContent)[0] ?? "",
    results: all(".tool > article.tool-result").length,
    more: all("details.more > summary").map((s) => s.textContent)[0] ?? "",
    articles: articles.length,
    anchored: articles.filter((a) => /^entry-/.test(a.id)).length,
    broken: links.filter((l) => !document.getElementById(l.hash.slice(1))).length,
    outline: outline === null ? 0 : outline.querySelectorAll("li").length,
    active: outline === null ? 0 : outline.querySelectorAll("li.on").length,
    sidebar: outline === null ? "none" : getComputedStyle(outline).display,
    folded: folded === null ? "none" : getComputedStyle(folded).display,
    wide: document.documentElement.scrollWidth > innerWidth + 1,
    cost: [...document.querySelectorAll("dl.meta dt")].some((d) => d.textContent === "Cost"),
  };
})()`;

/** A real session's page: what it must show, at a width. */
interface _Shown {
  strong: number;
  li: number;
  table: number;
  a: number;
  diff: number;
  kinds: string[];
  bash: string;
  read: string;
  results: number;
  more: string;
  articles: number;
  anchored: number;
  broken: number;
  outline: number;
  active: number;
  sidebar: string;
  folded: string;
  wide: boolean;
  cost: boolean;
}

Deno.test({
  name:
    "exportSession() HTML of the real pi session and the omp fixtures in Chromium: Markdown rendered, tools by kind with results under them, every entry anchored, the outline beside (desktop) or folded above (phone), no request but the page's own",
  ignore,
  fn: async () => {
    await Deno.mkdir(ARTIFACTS, { recursive: true });
    const dir = await Deno.makeTempDir();
    try {
      // Each with the tool kinds its page shows (the omp fixtures' active
      // paths call no bash: the tree of s1-main does; pi-large's aborted
      // turns hold an edit cut off before its newText, shown as `other`).
      const sessions = [
        ["pi-large", "../../fixtures/pi/large-session-v1.jsonl", false, [
          "bash",
          "edit",
          "other",
          "read",
          "write",
        ]],
        ["omp-s1-main", "../../fixtures/omp/s1-main.jsonl", false, [
          "other",
          "read",
        ]],
        ["omp-s1-main-tree", "../../fixtures/omp/s1-main.jsonl", true, [
          "bash",
          "other",
          "read",
        ]],
        ["omp-s2-fork", "../../fixtures/omp/s2-fork.jsonl", false, ["read"]],
      ] as const;
      const jobs: PageJob[] = [];
      const pages: string[] = [];
      for (const [name, rel, tree] of sessions) {
        const path = new URL(rel, import.meta.url).pathname;
        const r = await _export(path, join(dir, `${name}.html`), { tree });
        pages.push(r.files[0]!);
        for (const width of [1280, 390]) {
          jobs.push({
            url: `file://${r.files[0]}`,
            width,
            height: 1000,
            evaluate: [SHOWN],
            screenshot: join(ARTIFACTS, `${name}-${width}.png`),
          });
        }
      }
      const reports = await loadPages(jobs);
      for (const [j, report] of reports.entries()) {
        const [name, , tree, kinds] = sessions[Math.floor(j / 2)]!;
        const page = pages[Math.floor(j / 2)]!;
        const phone = j % 2 === 1;
        const at = `${name} at ${phone ? 390 : 1280}`;
        deepEqual(report.errors, [], at);
        // The page itself and the images beside it; nothing else.
        const own = `file://${dir}/`;
        deepEqual(report.requests.filter((u) => !u.startsWith(own)), [], at);
        equal(report.requests[0], `file://${page}`, at);
        const s = report.values[0] as _Shown;
        ok(s.articles > 0 && s.anchored === s.articles, `${at}: anchors`);
        equal(s.broken, 0, `${at}: every link to an entry resolves`);
        ok(s.outline > 0, `${at}: the outline`);
        ok(tree ? s.active < s.outline : s.active === s.outline, at);
        deepEqual(s.kinds, kinds.map((k) => `tool tool-${k}`), at);
        if ((kinds as readonly string[]).includes("bash")) {
          ok(s.bash.startsWith("$ "), at);
        }
        ok(s.read !== "", `${at}: the read path`);
        // Both modes nest a tool's result under its call.
        ok(s.results > 0, `${at}: results under their calls`);

        equal(s.sidebar, phone ? "none" : "block", at);
        equal(s.folded, phone ? "block" : "none", at);
        equal(s.wide, false, `${at}: nothing wider than the screen`);
        if (name === "pi-large") {
          for (const tag of ["strong", "li", "table", "a", "diff"] as const) {
            ok(s[tag] > 0, `${at}: ${tag}`);
          }
          ok(s.cost, `${at}: the cost`);
          ok(/^\d+ more lines?$/.test(s.more), `${at}: a folded rest`);
        }
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
