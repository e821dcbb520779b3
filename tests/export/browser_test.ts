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
import { Browser, checkBrowser, type LoadedPage } from "./_chromium.ts";
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
function _articles(page: LoadedPage): Promise<string[]> {
  return page.evaluate<string[]>(
    `[...document.querySelectorAll("article.msg")].map((a) => a.textContent)`,
  );
}

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
    await using chromium = await Browser.launch(browser.ok ? browser.path : "");
    for (const [name, path] of [["s1-main", FIXTURE], ["rich", rich.path]]) {
      await using session = await Session.open(path!);
      const messages = session.buildContext().messages;
      const r = await _export(path!, join(rich.out, `${name}.html`));
      for (const dark of [false, true]) {
        const page = await chromium.load(`file://${r.files[0]}`, { dark });
        deepEqual(page.errors, [], name);
        const shown = await _articles(page);
        equal(shown.length, messages.length, name);
        for (const [i, m] of messages.entries()) {
          const probe = _shown(_probe(m)).slice(0, 60);
          ok(_shown(shown[i]!).includes(probe), `${name} #${i}: ${probe}`);
        }
        const images = await page.evaluate<number[]>(
          "[...document.images].map((i) => i.naturalWidth)",
        );
        ok(images.length > 0 && images.every((w) => w > 0), name);
        await page.screenshot(
          join(ARTIFACTS, `${name}${dark ? "-dark" : ""}.png`),
        );
      }
    }
  },
});

Deno.test({
  name:
    "exportSession() HTML of a hostile session stays inert in Chromium: no script, no handler, no javascript: URL, no dialog",
  ignore,
  fn: async () => {
    await Deno.mkdir(ARTIFACTS, { recursive: true });
    await using t = await testSession(hostileSession());
    await using chromium = await Browser.launch(browser.ok ? browser.path : "");
    for (const tree of [false, true]) {
      const r = await _export(t.path, join(t.out, `h${tree}.html`), { tree });
      const page = await chromium.load(`file://${r.files[0]}`);
      deepEqual(page.errors, []);
      const dom = await page.evaluate<Record<string, unknown>>(`(() => {
        const all = [...document.querySelectorAll("*")];
        const attrs = all.flatMap((e) => [...e.attributes].map((a) => [e.tagName, a.name, a.value]));
        return {
          scripts: document.querySelectorAll("script, iframe, object, embed, form, base, link, svg").length,
          handlers: attrs.filter(([, n]) => n.startsWith("on")),
          urls: attrs.filter(([, , v]) => /^\\s*(javascript|vbscript|data:text)/i.test(v)),
          images: [...document.images].length,
          articles: document.querySelectorAll("article.msg").length,
          shown: document.body.textContent.includes(${
        JSON.stringify(HOSTILE_TEXT.slice(0, 80))
      }),
        };
      })()`);
      deepEqual(dom, {
        scripts: 0,
        handlers: [],
        urls: [],
        images: 0,
        articles: 5,
        shown: true,
      });
      if (!tree) await page.screenshot(join(ARTIFACTS, "hostile.png"));
    }
  },
});

Deno.test({
  name:
    "exportSession() HTML of a tree and of split pages loads in Chromium with no console error",
  ignore,
  fn: async () => {
    await Deno.mkdir(ARTIFACTS, { recursive: true });
    await using t = await testSession(richSession());
    await using chromium = await Browser.launch(browser.ok ? browser.path : "");
    const tree = await _export(FIXTURE, join(t.out, "tree.html"), {
      tree: true,
    });
    const page = await chromium.load(`file://${tree.files[0]}`);
    deepEqual(page.errors, []);
    equal(
      await page.evaluate<number>(
        `document.querySelectorAll("details.branch article.msg").length`,
      ),
      6, // the branch abandoned before the compaction
    );
    // The screenshot shows the first branch, opened.
    await page.evaluate(`(() => {
      const branch = document.querySelector("details.branch");
      branch.open = true;
      branch.previousElementSibling.scrollIntoView();
    })()`);
    await page.screenshot(join(ARTIFACTS, "tree.png"));
    await using long = await testSession(longSession(120));
    const paged = await _export(long.path, join(t.out, "paged.html"), {
      pageBytes: 32 * 1024,
    });
    ok(paged.pages > 1);
    let articles = 0;
    for (const file of paged.files) {
      const p = await chromium.load(`file://${file}`);
      deepEqual(p.errors, [], file);
      articles += (await _articles(p)).length;
    }
    equal(articles, paged.messages);
  },
});
