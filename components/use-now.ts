// The clock for ages: a fixed value (tests), or the real clock refreshed every
// `tickMs` so "open 5s" keeps counting while nothing else changes.
import { useEffect, useState } from 'react';

export function useNow(fixed?: number, tickMs = 5000): number {
  const [now, setNow] = useState(() => fixed ?? Date.now());
  useEffect(() => {
    if (fixed !== undefined) return;
    const t = setInterval(() => setNow(Date.now()), tickMs);
    return () => clearInterval(t);
  }, [fixed, tickMs]);
  return fixed ?? now;
}
