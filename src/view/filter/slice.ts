// The Sessions filter's slice of the app state: its query, and whether it is being typed.
import { textField, type TextField } from '../text/text-field.js';

export interface FilterSlice {
  filter: TextField;
  filterEditing: boolean;
}

export const initialFilter: FilterSlice = { filter: textField(''), filterEditing: false };
