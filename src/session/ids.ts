// Child ids: nanoid, never starting with '-' (a leading '-' reads as an option
// to `dsh-browse --session ID` and to most command lines).
import { nanoid } from 'nanoid';

export function newChildId(gen: () => string = () => nanoid()): string {
  for (;;) {
    const id = gen();
    if (id.length > 0 && !id.startsWith('-')) return id;
  }
}
