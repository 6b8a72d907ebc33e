/** Lineage rows shown: the view less its summary line and (from 3 rows up) the legend line. */
export const lineageListHeight = (view: number): number => Math.max(1, view - (view >= 3 ? 2 : 1));
