import { Alert, Badge, Button, Group, Modal, Progress, Select, Stack, Table, Text } from '@mantine/core';
import type { Entity } from '@ninepoint/spec';
import { useState } from 'react';
import { fieldLabel, label, pluralLabel } from '../app/screens.ts';
import { formatNumber } from '../format.ts';

/** What `POST …/import/preview` answers: the header's matches and the first rows. */
interface Preview {
  columns: { header: string; field: string | null }[];
  rows: { row: number; cells: string[] }[];
  total: number;
}

/** One refusal of one row, as an import's report lists it. */
interface RowError {
  row: number;
  column: string | null;
  field: string | null;
  code: string;
  message: string;
}

interface Report {
  dryRun: boolean;
  rows: number;
  imported: number;
  refused: number;
  errors: RowError[];
  more: number;
}

interface Problem {
  detail?: string;
  title?: string;
  errors?: RowError[];
}

/** "Leave out" in a column's choice: the column is not imported. */
const LEAVE_OUT = '';

type Step =
  | { kind: 'choose' }
  | { kind: 'columns'; file: File; preview: Preview; mapping: Record<string, string> }
  | { kind: 'checked'; file: File; preview: Preview; mapping: Record<string, string>; report: Report }
  | { kind: 'importing'; sent: number; total: number }
  | { kind: 'done'; imported: number };

/**
 * The list screen's import, for people who may create the entity's records: choose a CSV or XLSX
 * file; match its columns to fields (by name or label, as the server matched them, or by hand; a
 * column may be left out); see its first rows with each cell's refusal (a dry run of the whole
 * file on the server, every check a create makes); then import, all or nothing, with a progress
 * bar while the file goes up and the server writes.
 */
export function ImportWizard({
  entity,
  path,
  opened,
  onClose,
  onImported,
}: {
  entity: Entity;
  /** The create call's path: the import is `${path}/import`. */
  path: string;
  opened: boolean;
  onClose: () => void;
  onImported: () => void;
}) {
  const [step, setStep] = useState<Step>({ kind: 'choose' });
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const plural = pluralLabel(entity.name).toLowerCase();

  const close = () => {
    setStep({ kind: 'choose' });
    setProblem(null);
    onClose();
  };

  const choose = async (file: File | null) => {
    if (!file) return;
    setProblem(null);
    setBusy(true);
    try {
      const answer = await send(`${path}/import/preview`, form(file, null));
      if (answer.status !== 200) {
        setProblem(problemText(answer.body as Problem));
        return;
      }
      const preview = answer.body as Preview;
      const mapping = Object.fromEntries(
        preview.columns.map((c) => [c.header, c.field ?? suggestion(entity, c.header) ?? LEAVE_OUT]),
      );
      setStep({ kind: 'columns', file, preview, mapping });
    } finally {
      setBusy(false);
    }
  };

  const check = async (file: File, preview: Preview, mapping: Record<string, string>) => {
    setProblem(null);
    setBusy(true);
    try {
      const answer = await send(`${path}/import?dryRun=true`, form(file, mapping));
      if (answer.status !== 200) {
        setProblem(problemText(answer.body as Problem));
        return;
      }
      setStep({ kind: 'checked', file, preview, mapping, report: answer.body as Report });
    } finally {
      setBusy(false);
    }
  };

  const run = async (file: File, mapping: Record<string, string>) => {
    setProblem(null);
    setStep({ kind: 'importing', sent: 0, total: file.size });
    const answer = await send(`${path}/import`, form(file, mapping), (sent, total) =>
      setStep({ kind: 'importing', sent, total }),
    );
    if (answer.status === 201) {
      setStep({ kind: 'done', imported: (answer.body as Report).imported });
      onImported();
      return;
    }
    setProblem(problemText(answer.body as Problem));
    setStep({ kind: 'choose' });
  };

  return (
    <Modal opened={opened} onClose={close} title={`Import ${plural}`} size="xl">
      <Stack gap="md">
        {problem && (
          <Alert color="red" title="The file cannot be imported" role="alert">
            {problem}
          </Alert>
        )}
        {step.kind === 'choose' && (
          <Stack gap="xs">
            <Text size="sm">
              A CSV or Excel (.xlsx) file whose first row names the columns. Every row is checked as a new{' '}
              {label(entity.name).toLowerCase()} would be, and either all rows are imported or none.
            </Text>
            <label htmlFor="import-file">
              <Text size="sm" fw={500}>
                File
              </Text>
            </label>
            <input
              id="import-file"
              type="file"
              accept=".csv,.xlsx,text/csv,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
              disabled={busy}
              onChange={(event) => void choose(event.currentTarget.files?.[0] ?? null)}
            />
            {busy && <Text size="sm">Reading the file…</Text>}
          </Stack>
        )}
        {(step.kind === 'columns' || step.kind === 'checked') && (
          <Columns
            entity={entity}
            preview={step.preview}
            mapping={step.mapping}
            onChange={(mapping) => setStep({ kind: 'columns', file: step.file, preview: step.preview, mapping })}
          />
        )}
        {step.kind === 'columns' && (
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button loading={busy} onClick={() => void check(step.file, step.preview, step.mapping)}>
              Check the rows
            </Button>
          </Group>
        )}
        {step.kind === 'checked' && (
          <Checked entity={entity} step={step} onImport={() => void run(step.file, step.mapping)} onCancel={close} />
        )}
        {step.kind === 'importing' && (
          <Stack gap="xs">
            <Text size="sm">{step.sent < step.total ? 'Sending the file…' : 'Writing the records…'}</Text>
            <Progress
              value={step.total === 0 ? 100 : Math.round((step.sent / step.total) * 100)}
              animated={step.sent >= step.total}
              aria-label="Import progress"
            />
          </Stack>
        )}
        {step.kind === 'done' && (
          <Stack gap="sm">
            <Alert color="green" title="Imported" role="status">
              {formatNumber(step.imported)} {step.imported === 1 ? label(entity.name).toLowerCase() : plural} imported.
            </Alert>
            <Group justify="flex-end">
              <Button onClick={close}>Done</Button>
            </Group>
          </Stack>
        )}
      </Stack>
    </Modal>
  );
}

/** Each column of the file with the field it goes into, chosen or left out. */
function Columns({
  entity,
  preview,
  mapping,
  onChange,
}: {
  entity: Entity;
  preview: Preview;
  mapping: Record<string, string>;
  onChange: (mapping: Record<string, string>) => void;
}) {
  const options = [
    { value: LEAVE_OUT, label: 'Leave out' },
    ...entity.fields.map((f) => ({ value: f.name, label: fieldLabel(f) })),
  ];
  return (
    <Stack gap="xs">
      <Text size="sm" fw={500}>
        Columns ({formatNumber(preview.total)} rows)
      </Text>
      {preview.columns.map((column) => {
        const matched = column.field !== null;
        return (
          <Group key={column.header} gap="sm" wrap="wrap" align="flex-end">
            <Select
              label={`Column “${column.header}”`}
              data={options}
              value={mapping[column.header] ?? LEAVE_OUT}
              allowDeselect={false}
              onChange={(value) => onChange({ ...mapping, [column.header]: value ?? LEAVE_OUT })}
              style={{ flex: '1 1 14rem' }}
            />
            {!matched && (
              <Badge color="yellow" variant="light">
                {mapping[column.header] ? 'suggested' : 'no field has this name'}
              </Badge>
            )}
          </Group>
        );
      })}
    </Stack>
  );
}

/** The first rows with each cell's refusal, and the import's button when no row is refused. */
function Checked({
  entity,
  step,
  onImport,
  onCancel,
}: {
  entity: Entity;
  step: Extract<Step, { kind: 'checked' }>;
  onImport: () => void;
  onCancel: () => void;
}) {
  const { preview, mapping, report } = step;
  const shown = preview.columns.filter((c) => mapping[c.header]);
  const cellError = (row: number, header: string) => report.errors.find((e) => e.row === row && e.column === header);
  const rowErrors = (row: number) => report.errors.filter((e) => e.row === row && e.column === null);
  const plural = pluralLabel(entity.name).toLowerCase();
  return (
    <Stack gap="sm">
      {/* Focusable, so that a keyboard can scroll a table wider than a phone. */}
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must take focus (WCAG 2.1.1) */}
      <section aria-label="The first rows of the file" tabIndex={0} style={{ overflowX: 'auto' }}>
        <Table withTableBorder striped aria-label="The first rows">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Row</Table.Th>
              {shown.map((c) => (
                <Table.Th key={c.header}>{c.header}</Table.Th>
              ))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {preview.rows.map((r) => (
              <Table.Tr key={r.row}>
                <Table.Td>
                  {r.row}
                  {rowErrors(r.row).map((e) => (
                    <Text key={e.code} size="xs" c="red.9">
                      {e.message}
                    </Text>
                  ))}
                </Table.Td>
                {shown.map((c) => {
                  const index = preview.columns.indexOf(c);
                  const error = cellError(r.row, c.header);
                  return (
                    <Table.Td
                      key={c.header}
                      style={error ? { background: 'var(--mantine-color-red-light)' } : undefined}
                    >
                      <Text size="sm">{r.cells[index] ?? ''}</Text>
                      {error && (
                        <Text size="xs" c="red.9" data-error={error.code}>
                          {error.message}
                        </Text>
                      )}
                    </Table.Td>
                  );
                })}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </section>
      {report.refused === 0 ? (
        <Text size="sm" role="status">
          All {formatNumber(report.rows)} rows can be imported.
        </Text>
      ) : (
        <Alert
          color="red"
          title={`${formatNumber(report.refused)} of ${formatNumber(report.rows)} rows cannot be imported`}
        >
          Nothing will be imported until every row passes. Fix the file and choose it again.
          {report.errors
            .filter((e) => e.row > (preview.rows.at(-1)?.row ?? 1))
            .slice(0, 5)
            .map((e) => (
              <Text key={`${e.row}-${e.column}-${e.code}`} size="sm">
                Row {e.row}
                {e.column ? `, ${e.column}` : ''}: {e.message}
              </Text>
            ))}
        </Alert>
      )}
      <Group justify="flex-end">
        <Button variant="default" onClick={onCancel}>
          Cancel
        </Button>
        <Button disabled={report.refused > 0} onClick={onImport}>
          Import {formatNumber(report.rows)} {report.rows === 1 ? label(entity.name).toLowerCase() : plural}
        </Button>
      </Group>
    </Stack>
  );
}

/** A field whose name or label is close to the header (one contains the other), for an unmatched column. */
function suggestion(entity: Entity, header: string): string | undefined {
  const key = header
    .trim()
    .toLowerCase()
    .replace(/[\s_-]+/g, '');
  if (key.length < 3) return undefined;
  return entity.fields.find((f) => {
    const names = [f.name, f.label ?? ''].map((n) => n.toLowerCase().replace(/[\s_-]+/g, '')).filter((n) => n !== '');
    return names.some((n) => n.includes(key) || key.includes(n));
  })?.name;
}

function form(file: File, mapping: Record<string, string> | null): FormData {
  const data = new FormData();
  // The mapping must come before the file: the server reads the form as it arrives.
  if (mapping) data.append('mapping', JSON.stringify(mapping));
  data.append('file', file, file.name);
  return data;
}

function problemText(problem: Problem): string {
  return problem.detail ?? problem.title ?? 'The server refused the file.';
}

/** Posts a form, telling how much of it went up (XMLHttpRequest: fetch cannot tell an upload's progress). */
function send(
  url: string,
  body: FormData,
  progress?: (sent: number, total: number) => void,
): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve) => {
    const request = new XMLHttpRequest();
    request.open('POST', url);
    request.setRequestHeader('accept', 'application/json');
    request.withCredentials = true;
    if (progress) request.upload.onprogress = (event) => progress(event.loaded, event.total);
    request.onload = () => {
      let parsed: unknown = null;
      try {
        parsed = JSON.parse(request.responseText);
      } catch {
        parsed = { detail: 'The server answered something that is not JSON.' };
      }
      resolve({ status: request.status, body: parsed });
    };
    request.onerror = () =>
      resolve({ status: 0, body: { detail: 'The server did not answer. Check your connection.' } });
    request.send(body);
  });
}
