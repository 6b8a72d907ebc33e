// The reader: one event's content full screen over Turns (Enter on a leaf,
// or o), scrolled, wrapped and searched; Esc returns to the same row.
import { frameOf, step, type AppState } from '../app/state.js';
import { readerHeight } from './reader-size.js';
import type { Page, SurfaceModule } from '../app/surface.js';
import { editField, textField } from '../text/text-field.js';
import { READER_BINDINGS, READER_PROMPT_KEYS } from './reader-keys.js';
import { eventReaderContent, initialReaderState, readerDoc, readerReducer } from './reader-state.js';

/** The reader opened on `page` (readerDoc sanitises its title and content). */
function read(s: AppState, page: Page): AppState {
  const { title, content } = 'event' in page ? eventReaderContent(page.event) : { title: page.title, content: page.text };
  const doc = readerDoc(content, `${page.in} · ${title}`);
  return { ...s, reader: initialReaderState(doc, frameOf(s).width, readerHeight(s)), status: undefined };
}

export const READER: SurfaceModule<'reader'> = {
  id: 'reader',
  title: 'Reader',
  overView: true,
  active: (s) => Boolean(s.reader),
  keys: (s) => (s.reader?.prompt !== null && s.reader?.prompt !== undefined ? READER_PROMPT_KEYS : READER_BINDINGS),
  read: (s, _world, page) => step(read(s, page)),
  resized: (s) => (s.reader ? { ...s, reader: readerReducer(s.reader, { type: 'resize', width: frameOf(s).width, height: readerHeight(s) }) } : s),
  docs: [{ keys: READER_BINDINGS }, { when: 'its search prompt open', keys: READER_PROMPT_KEYS }],
  // the search prompt's text; anything else (a paste) does nothing
  other: (s, _world, _app, p) => {
    const r = s.reader!;
    if (r.prompt === null) return step(s);
    const field = editField(textField(r.prompt), p);
    return step(field && field.text !== r.prompt ? { ...s, reader: readerReducer(r, { type: 'searchInput', text: field.text }) } : s);
  },
};
