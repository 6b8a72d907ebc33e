// useInput with a handler that always sees the latest render. Ink subscribes
// useInput's handler in a passive effect, and after a large frame React may not
// flush passive effects until the NEXT update: a key pressed in between then
// runs the previous render's closure (seen: `f` in Turns forking at the row
// selected one keypress earlier). Here the subscription is made once, the
// handler and `active` are read through a ref assigned during render, so no
// key ever depends on an effect having run.
import { useInput, type Key } from 'ink';
import { useCallback, useRef } from 'react';

export function useKeys(handler: (input: string, key: Key) => void, active = true, afterKey?: () => void): void {
  const latest = useRef({ handler, active, afterKey });
  latest.current = { handler, active, afterKey };
  const stable = useCallback((input: string, key: Key) => {
    if (latest.current.active) latest.current.handler(input, key);
    latest.current.afterKey?.();
  }, []);
  useInput(stable);
}
