// The terminal's size, following resizes (stdout 'resize'). A fixed `override`
// wins (tests, where the fake stdout has no rows).
import { useStdout } from 'ink';
import { useEffect, useState } from 'react';

export interface TermSize {
  columns: number;
  rows: number;
}

const read = (out: NodeJS.WriteStream): TermSize => ({ columns: out.columns || 80, rows: out.rows || 24 });

export function useTerminalSize(override?: TermSize): TermSize {
  const { stdout } = useStdout();
  const [size, setSize] = useState<TermSize>(() => read(stdout));
  useEffect(() => {
    if (override) return;
    const onResize = (): void => setSize(read(stdout));
    stdout.on('resize', onResize);
    onResize();
    return () => {
      stdout.off('resize', onResize);
    };
  }, [stdout, override]);
  return override ?? size;
}
