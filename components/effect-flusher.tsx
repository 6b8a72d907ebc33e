// Work-around for a scheduling gap seen with Ink 6.8 + React 19 (legacy root):
// after a large frame, React may leave the commit's passive effects (useEffect,
// including the ones where Ink's useInput subscribes a component's handler and
// turns raw mode on) pending until the NEXT update. A key pressed in between is
// then lost or handled by the previous render's closure. Any update flushes
// pending passive effects first, so after mount, after each key and after each
// store change the app "pulses" this null leaf: a tiny update that lets every
// component's effects catch up within a tick.
import React, { useCallback, useLayoutEffect, useRef, useState } from 'react';

function Leaf(props: { register(bump: () => void): void }): null {
  const [, setN] = useState(0);
  useLayoutEffect(() => props.register(() => setN((n) => n + 1)), [props]);
  return null;
}

export function useEffectFlusher(): { flusher: React.JSX.Element; pulse(): void } {
  const bump = useRef<() => void>(() => {});
  const register = useCallback((fn: () => void) => {
    bump.current = fn;
  }, []);
  const pulse = useCallback(() => {
    setTimeout(() => bump.current(), 0);
  }, []);
  // once after mount: the first frame's effects (input subscription, raw mode)
  useLayoutEffect(() => pulse(), [pulse]);
  const props = useRef({ register }).current;
  return { flusher: <Leaf {...props} />, pulse };
}
