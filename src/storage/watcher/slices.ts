// The long walks of the watch (the start, a full comparison) run in slices,
// so the event loop gets a turn between them.

/** the slice of a long walk (the start, a full comparison) before the loop gets a turn */
const SLICE_MS = 8;

/**
 * Runs `step` until it returns false, in slices of SLICE_MS with the loop
 * free in between (keys, frames, raw events): the start and a full
 * comparison of a 100,000-folder tree take seconds, never in one block.
 * Stops once `watch` is closed.
 */
export async function inSlices(watch: { readonly closed: boolean }, step: () => boolean): Promise<void> {
  let until = performance.now() + SLICE_MS;
  while (!watch.closed && step()) {
    if (performance.now() >= until) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      until = performance.now() + SLICE_MS;
    }
  }
}

/** Runs `fn` on each of `items`, in slices (inSlices). */
export function eachInSlices<T>(watch: { readonly closed: boolean }, items: readonly T[], fn: (item: T) => void): Promise<void> {
  let i = 0;
  return inSlices(watch, () => {
    if (i >= items.length) return false;
    fn(items[i++]);
    return i < items.length;
  });
}
