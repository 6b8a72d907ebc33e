// The fork dialog's slice of the app state.
import type { Dialog } from './fork-dialog-state.js';

export interface DialogSlice {
  dialog?: Dialog;
}
