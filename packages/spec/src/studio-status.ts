import type { Diagnostic } from './diagnostics.ts';

/**
 * What became of the last attempt of `ninepoint dev` to apply the spec file, as the terminal, the
 * Studio and open pages show it (the dev server sends it; the web app reads it).
 */
export interface StudioStatus {
  /** Counts the specs applied since the dev server started (1 = the one it started with). */
  version: number;
  /**
   * `applied`: the app now serves it. `unchanged`: the same spec as the one served. `invalid`: the
   * checker found errors. `refused`: migrating would lose or invalidate data. `failed`: anything else.
   * In every case but `applied` the app keeps serving the last good spec.
   */
  outcome: 'applied' | 'unchanged' | 'invalid' | 'refused' | 'failed';
  /** ISO time of the attempt. */
  at: string;
  /** One sentence for people, e.g. "Applied: added column books.pages." */
  message: string;
  /** The checker's findings on the file as last read (warnings too when it was applied). */
  diagnostics: Diagnostic[];
  /** The migration plan as text, when the database had to change or refused to. */
  plan: string | null;
}
