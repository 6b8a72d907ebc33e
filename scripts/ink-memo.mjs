// Memos for the pure text functions Ink runs on every line of every frame.
//
// Ink builds each frame from scratch: a new Output whose caches live for one
// frame. For every text node it measures the text's width (string-width), and
// for every line of the screen it tokenizes the ANSI codes and builds one
// styled-char object per cell (@alcalzone/ansi-tokenize). Between two frames
// (a j or k) almost every line is the same string, but each is measured and
// tokenized again: at 100,000 sessions that was 8 of a frame's 13 ms, most of
// it string-width's grapheme segmenter on rows that hold one `…` or `▶`.
//
// These functions are pure, so the bundle (scripts/bundle.mjs) wraps them in
// bounded memos that outlive a frame: the same line string gets the same width
// and the same styled chars. Ink never changes a styled char or a token list
// after it gets one (output.js only reads them and places them in its grid), so
// sharing them between frames is safe. Each memo holds at most `cap` entries,
// the least recently used leaving first.

/** A Map used as an LRU: a hit moves the key to the end; past `cap` the first key leaves. */
export function lru(cap) {
  const m = new Map();
  return {
    get(k) {
      const v = m.get(k);
      if (v !== undefined) {
        m.delete(k);
        m.set(k, v);
      }
      return v;
    },
    set(k, v) {
      m.set(k, v);
      if (m.size > cap) m.delete(m.keys().next().value);
    },
    get size() {
      return m.size;
    },
  };
}

/**
 * `fn(input)` memoised on `input`, a string, when called with it alone (a
 * second argument, string-width's options or tokenize's end, calls through).
 */
export function memoOnString(fn, cap) {
  const memo = lru(cap);
  return function memoised(input, second) {
    if (second !== undefined || typeof input !== 'string') return fn(input, second);
    let v = memo.get(input);
    if (v === undefined) {
      v = fn(input);
      memo.set(input, v);
    }
    return v;
  };
}

/** string-width memoised on its string (how Ink, widest-line and wrap-ansi call it). */
export const memoWidth = (stringWidth, cap = 4096) => memoOnString(stringWidth, cap);

/** ansi-tokenize's tokenize memoised on its string (the token list is shared: Ink only reads it). */
export const memoTokenize = (tokenize, cap = 256) => memoOnString(tokenize, cap);

/** styledCharsFromTokens memoised on its token list (one per memoised line: a WeakMap, gone with the list). */
export function memoStyledChars(styledCharsFromTokens) {
  const memo = new WeakMap();
  return function memoStyledCharsFromTokens(tokens) {
    let c = memo.get(tokens);
    if (c === undefined) {
      c = styledCharsFromTokens(tokens);
      memo.set(tokens, c);
    }
    return c;
  };
}

/** The modules the bundle wraps, and the module text that wraps the real one (its absolute path). */
const WRAPS = {
  'string-width': (real, self) =>
    `import stringWidth from ${JSON.stringify(real)};\nimport { memoWidth } from ${JSON.stringify(self)};\nexport default memoWidth(stringWidth);\n`,
  '@alcalzone/ansi-tokenize': (real, self) =>
    `export * from ${JSON.stringify(real)};\n` +
    `import { tokenize as t, styledCharsFromTokens as s } from ${JSON.stringify(real)};\n` +
    `import { memoTokenize, memoStyledChars } from ${JSON.stringify(self)};\n` +
    `export const tokenize = memoTokenize(t);\nexport const styledCharsFromTokens = memoStyledChars(s);\n`,
};

/**
 * The esbuild plugin: every import of a wrapped module resolves (as it would
 * have, so each importer keeps its own version) and is then served through its memo.
 */
export function inkMemoPlugin() {
  const self = new URL(import.meta.url).pathname;
  return {
    name: 'ink-memo',
    setup(build) {
      build.onResolve({ filter: /^(string-width|@alcalzone\/ansi-tokenize)$/ }, async (args) => {
        if (args.pluginData?.real) return undefined;
        const r = await build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: { real: true } });
        if (r.errors.length) return { errors: r.errors };
        return { path: r.path, namespace: 'ink-memo', pluginData: { name: args.path } };
      });
      build.onLoad({ filter: /.*/, namespace: 'ink-memo' }, (args) => ({
        contents: WRAPS[args.pluginData.name](args.path, self),
        resolveDir: new URL('.', import.meta.url).pathname,
        loader: 'js',
      }));
    },
  };
}
