import { useMemo, useRef, useState } from 'react';
import type { PendingFiles } from './pending-files.ts';

/** A form's picked files, by field name, with every pick re-drawing the form. */
export function usePendingFiles(): PendingFiles & {
  /** Every picked file with its field, in the order picked. */
  all(): [string, File][];
  /** The fields with files picked. */
  fields(): ReadonlySet<string>;
} {
  const files = useRef(new Map<string, readonly File[]>());
  const [, setVersion] = useState(0);
  return useMemo(
    () => ({
      get: (field: string) => files.current.get(field) ?? [],
      set: (field: string, picked: readonly File[]) => {
        if (picked.length === 0) files.current.delete(field);
        else files.current.set(field, picked);
        setVersion((n) => n + 1);
      },
      all: () => [...files.current].flatMap(([field, list]) => list.map((file): [string, File] => [field, file])),
      fields: () => new Set(files.current.keys()),
    }),
    [],
  );
}

/**
 * The body as the rules will see the record once its picked files are uploaded: a field with
 * files picked has a value (`has(receipt)` holds), which the server gives it on arrival.
 */
export function withPendingFiles(body: Record<string, unknown>, fields: ReadonlySet<string>): Record<string, unknown> {
  if (fields.size === 0) return body;
  const filled = { ...body };
  for (const field of fields) {
    const kept = typeof filled[field] === 'string' ? String(filled[field]) : '';
    filled[field] = kept === '' ? 'pending-upload' : `${kept},pending-upload`;
  }
  return filled;
}
