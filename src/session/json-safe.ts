// Stack-safe JSON helpers. Session files are hostile input: JSON.parse reads
// an event whose data is nested 100,000 deep without trouble (V8's parser is
// iterative), but JSON.stringify and structuredClone recurse and throw
// RangeError (stack overflow) on it. These iterative versions handle JSON
// values (what JSON.parse produces: plain objects, arrays, strings, finite
// numbers, booleans, null) of any depth and give the same results as the
// built-ins on them.

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** Primitive (or unsupported) value -> JSON text, `undefined` when it is skipped (like JSON.stringify). */
function scalar(v: unknown): string | undefined {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'number':
      return Number.isFinite(v) ? String(v) : 'null';
    case 'boolean':
      return v ? 'true' : 'false';
    case 'bigint':
      throw new TypeError('Do not know how to serialize a BigInt');
    default:
      return undefined; // undefined, function, symbol
  }
}

type Frame = { kind: 'arr'; v: unknown[]; i: number; ind: string; any: boolean } | { kind: 'obj'; v: Record<string, unknown>; keys: string[]; i: number; ind: string; any: boolean };

/**
 * Indentation stops at this depth; deeper content is written compactly (still
 * exact JSON). Indenting a value nested 100,000 deep would take ~10^10 spaces.
 */
export const MAX_INDENT_DEPTH = 64;

/**
 * JSON.stringify for JSON values of any depth, iteratively. `sortKeys` orders
 * object keys (canonical form); `indent` is JSON.stringify's space argument
 * (a number of spaces). Cycles throw TypeError, like JSON.stringify. Objects
 * with toJSON (Dates, errors) are serialised through it.
 */
export function stringifyDeep(value: unknown, opts: { sortKeys?: boolean; indent?: number } = {}): string | undefined {
  const gap = ' '.repeat(Math.min(10, Math.max(0, opts.indent ?? 0)));
  const parts: string[] = [];
  const onPath = new Set<object>();
  const stack: Frame[] = [];
  const prep = (v: unknown, key: string): unknown => (isObj(v) && typeof (v as { toJSON?: unknown }).toJSON === 'function' ? (v as { toJSON(k: string): unknown }).toJSON(key) : v);
  /** Emits a value or opens a frame for it. Returns false when it is skipped (undefined/function). */
  const open = (v: unknown, ind: string): boolean => {
    if (!isObj(v)) {
      const s = scalar(v);
      if (s === undefined) return false;
      parts.push(s);
      return true;
    }
    if (onPath.has(v)) throw new TypeError('Converting circular structure to JSON');
    onPath.add(v);
    if (Array.isArray(v)) {
      parts.push('[');
      stack.push({ kind: 'arr', v, i: 0, ind, any: false });
    } else {
      parts.push('{');
      const keys = Object.keys(v);
      if (opts.sortKeys) keys.sort();
      stack.push({ kind: 'obj', v, keys, i: 0, ind, any: false });
    }
    return true;
  };
  if (!open(prep(value, ''), '')) return undefined;
  while (stack.length) {
    const f = stack[stack.length - 1];
    const deep = stack.length > MAX_INDENT_DEPTH;
    const g = deep ? '' : gap;
    const inner = deep ? f.ind : f.ind + gap;
    if (f.kind === 'arr') {
      if (f.i >= f.v.length) {
        stack.pop();
        onPath.delete(f.v);
        parts.push(f.any && g ? `\n${f.ind}]` : ']');
        continue;
      }
      const i = f.i++;
      parts.push((f.any ? ',' : '') + (g ? `\n${inner}` : ''));
      f.any = true;
      if (!open(prep(f.v[i], String(i)), inner)) parts.push('null');
    } else {
      if (f.i >= f.keys.length) {
        stack.pop();
        onPath.delete(f.v);
        parts.push(f.any && g ? `\n${f.ind}}` : '}');
        continue;
      }
      const k = f.keys[f.i++];
      const v = prep(f.v[k], k);
      if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
      parts.push((f.any ? ',' : '') + (g ? `\n${inner}` : '') + JSON.stringify(k) + (g ? ': ' : ':'));
      f.any = true;
      open(v, inner);
    }
  }
  return parts.join('');
}

/**
 * JSON.stringify, falling back to the iterative version only when the
 * built-in overflows the stack: same output, fast path for ordinary values.
 */
export function safeStringify(value: unknown, indent?: number): string {
  try {
    return JSON.stringify(value, null, indent) ?? 'null';
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    return stringifyDeep(value, { indent }) ?? 'null';
  }
}

/** Deep copy of a JSON value of any depth (structuredClone recurses and overflows). */
export function cloneDeep<T>(value: T): T {
  if (!isObj(value)) return value;
  const root: unknown = Array.isArray(value) ? new Array(value.length) : {};
  const work: Array<[Record<string, unknown> | unknown[], Record<string, unknown> | unknown[]]> = [[value as Record<string, unknown>, root as Record<string, unknown>]];
  const seen = new Map<object, unknown>([[value as object, root]]);
  while (work.length) {
    const [src, dst] = work.pop()!;
    for (const k of Object.keys(src)) {
      const v = (src as Record<string, unknown>)[k];
      let c: unknown = v;
      if (isObj(v)) {
        c = seen.get(v);
        if (c === undefined) {
          c = Array.isArray(v) ? new Array(v.length) : {};
          seen.set(v, c);
          work.push([v as Record<string, unknown>, c as Record<string, unknown>]);
        }
      }
      // defineProperty, not assignment: JSON.parse makes "__proto__" an own key, and so must the copy.
      if (k === '__proto__') Object.defineProperty(dst, k, { value: c, enumerable: true, writable: true, configurable: true });
      else (dst as Record<string, unknown>)[k] = c;
    }
  }
  return root as T;
}

/** structuredClone, falling back to the iterative copy when it overflows the stack. */
export function safeClone<T>(value: T): T {
  try {
    return structuredClone(value);
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    return cloneDeep(value);
  }
}

/**
 * Any file-derived value as display text, without recursion: strings as they
 * are, everything else as (stack-safe) JSON. `String(v)` is not safe here:
 * Array.prototype.toString recurses and overflows on an array nested 100,000 deep.
 */
export function textOf(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === undefined) return 'undefined';
  try {
    return safeStringify(v);
  } catch {
    return Object.prototype.toString.call(v);
  }
}
