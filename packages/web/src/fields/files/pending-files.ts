import { createContext } from 'react';

/**
 * The files a form's user has picked but not sent yet, by field name: the form sends them with
 * the record (multipart/form-data), so a record and its files are written together or not at all.
 */
export interface PendingFiles {
  get(field: string): readonly File[];
  set(field: string, files: readonly File[]): void;
  /** The form only adds files (a transition's dialog): the ones a record holds stay. */
  addOnly?: boolean;
}

/** Null outside a form that can send files: file inputs then only remove. */
export const PendingFilesContext = createContext<PendingFiles | null>(null);
