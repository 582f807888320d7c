import { Button, Group, Loader, Text } from '@mantine/core';
import { useEffect, useRef, useState } from 'react';
import { Failure } from '../app/pages.tsx';
import { formatNumber } from '../format.ts';
import { download, type ExportOptions, exportCsv } from './export.ts';
import { DownloadIcon } from './icons.tsx';

/**
 * Exports every record of the list as it is filtered and sorted, all pages, as CSV; shows how
 * many are written while it runs, and may be cancelled.
 */
export function ExportButton({
  options,
  filename,
}: {
  options: Omit<ExportOptions, 'onProgress' | 'signal'>;
  filename: string;
}) {
  const [written, setWritten] = useState<number | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<number | null>(null);
  const controller = useRef<AbortController | null>(null);
  useEffect(() => () => controller.current?.abort(), []);

  const start = async () => {
    controller.current?.abort();
    const abort = new AbortController();
    controller.current = abort;
    setError(null);
    setDone(null);
    setWritten(0);
    try {
      const { blob, count } = await exportCsv({ ...options, signal: abort.signal, onProgress: setWritten });
      download(blob, filename);
      setDone(count);
    } catch (caught) {
      if (!(caught instanceof DOMException && caught.name === 'AbortError')) setError(caught);
    } finally {
      if (controller.current === abort) controller.current = null;
      setWritten(null);
    }
  };

  return (
    <>
      {written === null ? (
        <Button variant="default" leftSection={<DownloadIcon size={16} />} onClick={() => void start()}>
          Export CSV
        </Button>
      ) : (
        <Group gap="xs" wrap="nowrap">
          <Text size="sm" c="dimmed" style={{ display: 'inline-flex', alignItems: 'center', gap: 8 }}>
            <Loader size={14} aria-hidden="true" />
            Exporting… {formatNumber(written)}
          </Text>
          <Button variant="subtle" color="gray" onClick={() => controller.current?.abort()}>
            Cancel
          </Button>
        </Group>
      )}
      <Text
        size="xs"
        c="dimmed"
        role="status"
        aria-live="polite"
        style={{ position: 'absolute', width: 1, height: 1, overflow: 'hidden', clip: 'rect(0 0 0 0)' }}
      >
        {written !== null
          ? `Exporting: ${formatNumber(written)} records written`
          : done !== null
            ? `Exported ${formatNumber(done)} records to ${filename}`
            : ''}
      </Text>
      {error !== null && (
        <div style={{ flexBasis: '100%' }}>
          <Failure error={error} retry={() => void start()} />
        </div>
      )}
    </>
  );
}
