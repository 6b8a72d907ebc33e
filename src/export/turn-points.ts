// The turns' tokens and durations as an export meets them, a point a turn
// (turnPoint reckons each): the series its per-turn charts draw and the words
// beside them. A few numbers a turn, never an event.
import type { TurnPoint } from '../session/turn-series.js';
import { compact } from '../session/usage.js';
import { durationText } from '../view/text/duration.js';

export class TurnPoints {
  readonly turns: number[] = [];
  readonly tokens: number[] = [];
  /** undefined: a time is missing, or the clock went back */
  readonly ms: Array<number | undefined> = [];

  add(p: TurnPoint): void {
    this.turns.push(p.turn);
    this.tokens.push(p.tokens);
    this.ms.push(p.ms);
  }

  get length(): number {
    return this.turns.length;
  }
}

/** The index of the largest value (the first of equals), or -1 when none is above 0. */
function peakAt(values: readonly (number | undefined)[]): number {
  let at = -1;
  for (let i = 0; i < values.length; i++) if ((values[i] ?? 0) > 0 && (at < 0 || values[i]! > values[at]!)) at = i;
  return at;
}

const turnsText = (n: number): string => `${n} turn${n === 1 ? '' : 's'}`;

/** `4 turns · peak 12k at turn 3 · total 45k` */
export function tokensCaption(p: TurnPoints): string {
  const at = peakAt(p.tokens);
  const total = p.tokens.reduce((a, b) => a + b, 0);
  return [turnsText(p.length), at < 0 ? 'no tokens recorded' : `peak ${compact(p.tokens[at])} at turn ${p.turns[at]}`, `total ${compact(total)}`].join(' · ');
}

/** `4 turns · peak 2m05s at turn 3 · total 3m10s · 1 turn without a usable time` */
export function timeCaption(p: TurnPoints): string {
  const at = peakAt(p.ms);
  const total = p.ms.reduce<number>((a, b) => a + (b ?? 0), 0);
  const parts = [turnsText(p.length), at < 0 ? 'no time recorded' : `peak ${durationText(p.ms[at]!)} at turn ${p.turns[at]}`, `total ${durationText(total)}`];
  const untimed = p.ms.filter((v) => v === undefined).length;
  if (untimed) parts.push(`${turnsText(untimed)} without a usable time`);
  return parts.join(' · ');
}

/** How many turns a chart's cell stands for, said when it is more than one: ` · each mark the largest of 3 turns` */
export const perCellText = (per: number): string => (per > 1 ? ` · each mark the largest of ${per} turns` : '');
