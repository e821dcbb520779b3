/**
 * Shared by the export's browser tests (no tests of its own), run in the
 * child process `_browser.ts` starts (it needs to reach 127.0.0.1, which
 * the test task does not allow): headless Chromium (Debian's `chromium`
 * package, no npm download) driven over the DevTools protocol with Deno's
 * WebSocket. It loads a page, gathers every
 * console error, uncaught exception, dialog (`alert`) and log error (a
 * refused resource, a CSP violation, a missing file), evaluates expressions
 * in the page and takes screenshots.
 */

const _START_TIMEOUT_MS = 20_000;
const _CALL_TIMEOUT_MS = 30_000;

/** One DevTools message: a reply to a call, or an event. */
interface _Message {
  id?: number;
  method?: string;
  sessionId?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { message: string };
}

/** A page loaded in the browser, and what it reported while loading. */
export interface LoadedPage {
  /** Console errors, exceptions and log errors, in order. */
  errors: string[];
  /** The URL of every request the page made (its own load included), in order. */
  requests: string[];
  /**
   * Evaluate an expression in the page, returning its value as JSON.
   *
   * @param expression JavaScript.
   */
  evaluate<T>(expression: string): Promise<T>;
  /**
   * Save a PNG of the page's viewport.
   *
   * @param path Where.
   */
  screenshot(path: string): Promise<void>;
}

/** A headless Chromium, its profile in a fresh temp dir. */
export class Browser implements AsyncDisposable {
  readonly #process: Deno.ChildProcess;
  readonly #profile: string;
  readonly #socket: WebSocket;
  readonly #waiting = new Map<
    number,
    { resolve(m: _Message): void; reject(e: Error): void }
  >();
  readonly #listeners = new Set<(m: _Message) => void>();
  #next = 1;

  private constructor(
    process: Deno.ChildProcess,
    profile: string,
    socket: WebSocket,
  ) {
    this.#process = process;
    this.#profile = profile;
    this.#socket = socket;
    socket.onmessage = (e) => {
      const m = JSON.parse(String(e.data)) as _Message;
      if (m.id !== undefined) {
        const w = this.#waiting.get(m.id);
        this.#waiting.delete(m.id);
        if (m.error !== undefined) w?.reject(new Error(m.error.message));
        else w?.resolve(m);
      } else for (const l of this.#listeners) l(m);
    };
  }

  /**
   * Start Chromium headless and connect to it.
   *
   * @param path The browser's executable.
   */
  static async launch(path: string): Promise<Browser> {
    const profile = await Deno.makeTempDir({ prefix: "xdev-chromium-" });
    const process = new Deno.Command(path, {
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-extensions",
        "--disable-breakpad",
        "--disable-crash-reporter",
        "--disable-default-apps",
        "--hide-scrollbars",
        "--mute-audio",
        `--user-data-dir=${profile}`,
        "--remote-debugging-port=0",
        "about:blank",
      ],
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).spawn();
    try {
      const url = await _devToolsUrl(process.stderr);
      const socket = new WebSocket(url);
      await new Promise<void>((resolve, reject) => {
        socket.onopen = () => resolve();
        socket.onerror = () => reject(new Error("the DevTools socket failed"));
      });
      return new Browser(process, profile, socket);
    } catch (err) {
      process.kill("SIGKILL");
      await process.status;
      await _removeProfile(profile);
      throw err;
    }
  }

  /** The browser's product string. */
  async version(): Promise<string> {
    const r = await this.#call("Browser.getVersion");
    return String(r.product);
  }

  /**
   * Open `url` in a new tab of the given size and wait for its load event.
   *
   * @param url A `file://` URL.
   * @param options The viewport, and a dark color scheme.
   */
  async load(
    url: string,
    options: { width?: number; height?: number; dark?: boolean } = {},
  ): Promise<LoadedPage> {
    const { targetId } = await this.#call("Target.createTarget", {
      url: "about:blank",
    });
    const { sessionId } = await this.#call("Target.attachToTarget", {
      targetId,
      flatten: true,
    });
    const sid = String(sessionId);
    const errors: string[] = [];
    const requests: string[] = [];
    let loaded: () => void = () => {};
    const onLoad = new Promise<void>((resolve) => loaded = resolve);
    this.#listeners.add((m) => {
      if (m.sessionId !== sid) return;
      const p = m.params ?? {};
      if (m.method === "Page.loadEventFired") loaded();
      if (m.method === "Network.requestWillBeSent") {
        const request = p.request as { url?: string } | undefined;
        requests.push(String(request?.url));
      }
      if (m.method === "Page.javascriptDialogOpening") {
        errors.push(`dialog: ${JSON.stringify(p.message)}`);
        this.#call("Page.handleJavaScriptDialog", { accept: true }, sid)
          .catch(() => {});
      }
      if (m.method === "Runtime.exceptionThrown") {
        errors.push(`exception: ${JSON.stringify(p.exceptionDetails)}`);
      }
      if (
        m.method === "Runtime.consoleAPICalled" &&
        (p.type === "error" || p.type === "assert")
      ) {
        errors.push(`console.${p.type}: ${JSON.stringify(p.args)}`);
      }
      const entry = p.entry as { level?: string; text?: string } | undefined;
      if (m.method === "Log.entryAdded" && entry?.level === "error") {
        errors.push(`log: ${entry.text}`);
      }
    });
    for (const domain of ["Page", "Runtime", "Log", "Network"]) {
      await this.#call(`${domain}.enable`, {}, sid);
    }
    await this.#call("Emulation.setDeviceMetricsOverride", {
      width: options.width ?? 1200,
      height: options.height ?? 2000,
      deviceScaleFactor: 1,
      mobile: (options.width ?? 1200) < 600,
    }, sid);
    await this.#call("Emulation.setEmulatedMedia", {
      features: [{
        name: "prefers-color-scheme",
        value: options.dark === true ? "dark" : "light",
      }],
    }, sid);
    await this.#call("Page.navigate", { url }, sid);
    await _timeout(onLoad, "the page's load event");
    // Let late resource errors and console messages arrive.
    await new Promise((r) => setTimeout(r, 300));
    return {
      errors,
      requests,
      evaluate: async <T>(expression: string): Promise<T> => {
        const r = await this.#call("Runtime.evaluate", {
          expression,
          returnByValue: true,
        }, sid);
        if (r.exceptionDetails !== undefined) {
          throw new Error(`evaluate: ${JSON.stringify(r.exceptionDetails)}`);
        }
        return (r.result as { value: T }).value;
      },
      screenshot: async (path: string) => {
        const r = await this.#call("Page.captureScreenshot", {
          format: "png",
        }, sid);
        await Deno.writeFile(path, Uint8Array.fromBase64(String(r.data)));
      },
    };
  }

  #call(
    method: string,
    params: Record<string, unknown> = {},
    sessionId?: string,
  ): Promise<Record<string, unknown>> {
    const id = this.#next++;
    const reply = new Promise<_Message>((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
    });
    this.#socket.send(JSON.stringify({ id, method, params, sessionId }));
    return _timeout(reply, method).then((m) => m.result ?? {});
  }

  /** Close the connection, end the browser, remove its profile. */
  async [Symbol.asyncDispose](): Promise<void> {
    const closed = new Promise<void>((resolve) => {
      this.#socket.onclose = () => resolve();
    });
    this.#socket.close();
    await _timeout(closed, "closing the socket").catch(() => {});
    try {
      this.#process.kill("SIGTERM");
    } catch {
      // already gone
    }
    await this.#process.status;
    await _removeProfile(this.#profile);
  }
}

/** Remove a profile; helpers of the browser may write to it as they end. */
async function _removeProfile(profile: string): Promise<void> {
  for (let attempt = 1;; attempt++) {
    try {
      await Deno.remove(profile, { recursive: true });
      return;
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return;
      if (attempt >= 20) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** Read stderr until Chromium says where DevTools listens; drain the rest. */
async function _devToolsUrl(
  stderr: ReadableStream<Uint8Array>,
): Promise<string> {
  const lines = stderr.pipeThrough(new TextDecoderStream());
  const reader = lines.getReader();
  let seen = "";
  const found = (async () => {
    while (true) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`it exited: ${seen.slice(-300)}`);
      seen += value;
      const m = /DevTools listening on (ws:\/\/\S+)/.exec(seen);
      if (m !== null) return m[1]!;
    }
  })();
  const url = await _timeout(found, "DevTools to listen", _START_TIMEOUT_MS);
  // Keep reading, so the browser never blocks on a full pipe.
  (async () => {
    while (!(await reader.read()).done) { /* drain */ }
  })().catch(() => {});
  return url;
}

function _timeout<T>(
  promise: Promise<T>,
  what: string,
  ms = _CALL_TIMEOUT_MS,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`timed out waiting for ${what}`)),
      ms,
    );
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
