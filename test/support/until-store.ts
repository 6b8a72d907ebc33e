// Waiting on the follower's own event, never on a timer.
import type { RootIndex } from '../../src/storage/load-root.js';

/**
 * Resolves once `pred` holds, checked now and after every store emit (the
 * follower emits once per applied batch): it waits on the follower's own
 * event, not on a timer. The deadline, far above the expected time, only
 * turns a follower that never catches up into a failure.
 */
export function until(index: Pick<RootIndex, 'store'>, pred: () => boolean, ms = 20_000): Promise<void> {
  let failed: unknown;
  // A listener runs inside the follower's emit: it must not throw into it (a
  // session is briefly absent while it is re-read).
  const holds = () => {
    try {
      return pred();
    } catch (e) {
      failed = e;
      return false;
    }
  };
  return new Promise((resolve, reject) => {
    if (holds()) return resolve();
    const timer = setTimeout(() => {
      off();
      reject(new Error(`timed out waiting for the follower${failed ? ` (last check: ${String(failed)})` : ''}`));
    }, ms);
    const off = index.store.subscribe(() => {
      if (!holds()) return;
      off();
      clearTimeout(timer);
      resolve();
    });
  });
}
