/**
 * The part of highlight.js the export calls, typed here: the package's own
 * types reference the DOM library, which changes Deno's web stream types
 * for every module type-checked with them.
 */
declare const hljs: {
  getLanguage(name: string): object | undefined;
  highlight(
    code: string,
    options: { language: string; ignoreIllegals: boolean },
  ): { value: string };
};
export default hljs;
