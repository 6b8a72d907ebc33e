// Colour, or none under NO_COLOR (https://no-color.org): components ask the
// theme for a colour name and get `undefined` when colour is off. Bold,
// inverse and dim are attributes, not colours, and stay on.
import React, { createContext, useContext } from 'react';

export type Tone = 'green' | 'yellow' | 'gray' | 'red' | 'cyan' | 'magenta' | 'blue';

export const colorFromEnv = (): boolean => !('NO_COLOR' in process.env && process.env.NO_COLOR !== '');

const ColorContext = createContext<boolean>(true);

export function ThemeProvider(props: { color: boolean; children: React.ReactNode }): React.JSX.Element {
  return <ColorContext.Provider value={props.color}>{props.children}</ColorContext.Provider>;
}

/** `tone(name)` is the colour to pass to Ink, or undefined when colour is off. */
export function useTone(): (t: Tone | undefined) => Tone | undefined {
  const on = useContext(ColorContext);
  return (t) => (on ? t : undefined);
}
