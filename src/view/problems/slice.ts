// The Problems view's slice of the app state.

export interface ProblemsSlice {
  /** the highlighted row (-1: none) and the window's top */
  problems: { hint: number; top: number };
}

export const initialProblems: ProblemsSlice = { problems: { hint: 0, top: 0 } };
