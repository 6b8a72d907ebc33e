// Re-render on store changes, at most once per `ms` (a burst of appends from a
// live writer is one frame). `bump()` forces an immediate re-render (after our
// own fork, so the child shows at once).
import { useCallback, useEffect, useState } from 'react';
import type { SessionStore } from '../src/session/store.js';

export function useStoreVersion(store: SessionStore, ms = 16): { version: number; bump(): void } {
  const [version, setVersion] = useState(0);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const unsubscribe = store.subscribe(() => {
      if (timer) return;
      timer = setTimeout(() => {
        timer = undefined;
        setVersion((v) => v + 1);
      }, ms);
    });
    return () => {
      unsubscribe();
      if (timer) clearTimeout(timer);
    };
  }, [store, ms]);
  const bump = useCallback(() => setVersion((v) => v + 1), []);
  return { version, bump };
}
