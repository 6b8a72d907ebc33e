// Keys -> actions, one press at a time. The subscription to Ink's input events
// is made once, in a layout effect (so it exists as soon as the first frame is
// committed), and never reads a render's closure: every press goes straight to
// the controller, which applies it to the latest state.
import { useStdin } from 'ink';
import { useLayoutEffect } from 'react';
import type { AppAction } from '../../src/view/app/state.js';
import { createKeySplitter } from '../../src/view/app/keys.js';

export function useKeyInput(dispatch: (a: AppAction) => void): void {
  const { setRawMode, isRawModeSupported, internal_eventEmitter: events } = useStdin();
  useLayoutEffect(() => {
    if (isRawModeSupported) setRawMode(true);
    const splitter = createKeySplitter();
    const onInput = (data: string): void => {
      for (const press of splitter.push(data)) dispatch({ type: 'key', press });
    };
    events.on('input', onInput);
    return () => {
      events.off('input', onInput);
      if (isRawModeSupported) setRawMode(false);
    };
  }, [dispatch, events, isRawModeSupported, setRawMode]);
}
